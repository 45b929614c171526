package daterange

// Civil-calendar arithmetic on day numbers: day 0 is 1970-01-01 in the
// proleptic Gregorian calendar. The grammar only ever works in whole days, so
// the parser computes day numbers and builds time.Time values once, at the
// end. The conversions follow the well-known era-based algorithm (days from
// civil and back), written here from its arithmetic definition.

// Bounds of the years a Range built by Parse may hold: the wire layout has
// four digits for the year, and year 0 is not a calendar year users type.
const (
	minYear = 1
	maxYear = 9999
)

var (
	minDay = daysFromCivil(minYear, 1, 1)
	maxDay = daysFromCivil(maxYear, 12, 31)
)

// floorDiv divides rounding toward negative infinity.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// daysFromCivil returns the day number of y-m-d (m in 1..12, d in 1..31).
func daysFromCivil(y, m, d int) int64 {
	yy := int64(y)
	if m <= 2 {
		yy--
	}
	era := floorDiv(yy, 400)
	yoe := yy - era*400 // [0, 399]
	mp := int64((m + 9) % 12)
	doy := (153*mp+2)/5 + int64(d) - 1 // [0, 365]
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int) {
	z += 719468
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	yy := yoe + era*400
	if m <= 2 {
		yy++
	}
	return int(yy), m, d
}

// isoWeekday returns 0 for Monday through 6 for Sunday.
func isoWeekday(day int64) int64 {
	return floorMod(day+3, 7) // 1970-01-01 was a Thursday
}

func floorMod(a, b int64) int64 {
	return a - floorDiv(a, b)*b
}

// daysIn returns the number of days in month m of year y.
func daysIn(y, m int) int {
	switch m {
	case 4, 6, 9, 11:
		return 30
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	}
	return 31
}

// unit is a calendar unit of the grammar.
type unit uint8

const (
	unitNone unit = iota
	unitDay
	unitWeek
	unitMonth
	unitQuarter
	unitYear
)

// clock is "today" in the statement's zone, as a day number and its civil
// date.
type clock struct {
	today int64
	y, m  int
}

// start returns the first day of the unit k units before the current one
// (k = 0: the current unit; k may be negative for later units).
func (c clock) start(u unit, k int64) int64 {
	switch u {
	case unitDay:
		return c.today - k
	case unitWeek:
		return c.today - isoWeekday(c.today) - 7*k
	case unitMonth:
		mi := int64(c.y)*12 + int64(c.m-1) - k
		y := floorDiv(mi, 12)
		return daysFromCivil(int(y), int(mi-y*12)+1, 1)
	case unitQuarter:
		qi := int64(c.y)*4 + int64(c.m-1)/3 - k
		y := floorDiv(qi, 4)
		return daysFromCivil(int(y), int(qi-y*4)*3+1, 1)
	case unitYear:
		return daysFromCivil(int(int64(c.y)-k), 1, 1)
	}
	return c.today // unreachable: the parser only passes known units
}

// end returns the last day of the unit k units before the current one.
func (c clock) end(u unit, k int64) int64 {
	return c.start(u, k-1) - 1
}
