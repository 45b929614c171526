package daterange

import (
	"fmt"
	"strings"
	"time"

	"github.com/tj/go-naturaldate"
)

// MaxDayLen is the longest value ParseDay reads, in bytes.
const MaxDayLen = 64

// ParseDay reads the value of a "datebox" filter, one day, relative to now.
// It accepts:
//
//   - ISO 8601 "YYYY-MM-DD";
//   - the single dates of the grammar: DD MMMM YYYY, DD-MMMM-YYYY,
//     DD MM YYYY, DD-MM-YYYY, today and yesterday;
//   - a few natural phrases, evaluated by github.com/tj/go-naturaldate with
//     the past as the default direction: now, tomorrow; N <units> ago,
//     N <units> from now, in N <units>, in a <unit> (units: day, week,
//     month, year; N in digits or one to ten); <weekday>, last <weekday>,
//     next <weekday> ("friday" is the last Friday before today).
//
// A phrase means the same here as in Parse's grammar or is refused: "last
// week", "this month", "next year" and the like are periods in the grammar,
// not days, so ParseDay refuses them (where go-naturaldate would move one
// unit back or forward). "N units ago" is one day here, N units before
// today; in the grammar it is only a bound inside between.
//
// Moving by months or years keeps the day of the month, clamped to the
// target month's last day (31 March minus one month is 28 February).
//
// go-naturaldate skips words it does not know, so a phrase is handed to it
// only when it matches one of these shapes word by word; anything else is an
// error, never a guess. The result is the first instant of the day in now's
// location (or the one given with WithLocation): its midnight, or where a
// daylight-saving change skips midnight, the first instant after it; a day
// a zone change skips whole is an ErrInvalidDate error. Words are separated
// as in Parse (Unicode no-break and typographic spaces included). Errors
// are *Error values, as from Parse.
func ParseDay(value string, now time.Time, opts ...Option) (time.Time, error) {
	if len(opts) > 0 {
		if l := applyOptions(opts); l != nil {
			now = now.In(l)
		}
	}
	loc := now.Location()
	if len(value) > MaxDayLen {
		return time.Time{}, newError(ErrSyntax, token{text: value}, fmt.Sprintf("a day is at most %d bytes", MaxDayLen))
	}
	s, off := trimSpace(value)
	if s == "" {
		return time.Time{}, newError(ErrSyntax, token{pos: len(value)}, "empty value: expected a day")
	}
	if d, ok, err := isoDay(s, off); ok || err != nil {
		if err != nil {
			return time.Time{}, err
		}
		return existingDay(d, loc, s, off)
	}
	y, m, dd := now.Date()
	p := parser{src: value, sc: scanner{s: value}}
	p.c = clock{today: daysFromCivil(y, int(m), dd), y: y, m: int(m)}
	first := p.sc.peek()
	if isDigit(first.text[0]) && !isUnitWord(p.sc, 1) && !agoShape(p.sc) {
		t := p.sc.next()
		sp, err := p.date(t)
		if err == nil {
			err = p.end()
		}
		if err != nil {
			return time.Time{}, err
		}
		return existingDay(sp.lo, loc, s, off)
	}
	if is(first, "today") || is(first, "yesterday") {
		t := p.sc.next()
		sp, err := p.term(t, formDay, sideBoth)
		if err == nil {
			err = p.end()
		}
		if err != nil {
			return time.Time{}, err
		}
		return existingDay(sp.lo, loc, s, off)
	}
	return naturalDay(value, now, s, off)
}

// existingDay returns the first instant of a day in loc, or an error if a
// zone change skips the whole day (Pacific/Apia went from 29 to 31
// December 2011); what and off are the value and its position.
func existingDay(day int64, loc *time.Location, what string, off int) (time.Time, error) {
	t := dayStart(day, loc)
	if localDay(t) != day {
		y, m, d := civilFromDays(day)
		return time.Time{}, newError(ErrInvalidDate, token{text: what, pos: off},
			fmt.Sprintf("%d %s %04d does not exist in %s: a zone change skips it", d, time.Month(m), y, loc))
	}
	return t, nil
}

// trimSpace returns s without leading and trailing spaces (as the scanner
// knows them) and the byte offset of what remains.
func trimSpace(s string) (string, int) {
	i := 0
	for i < len(s) {
		n := spaceLen(s, i)
		if n == 0 {
			break
		}
		i += n
	}
	j := len(s)
	for j > i {
		n := spaceLenBefore(s, j)
		if n == 0 {
			break
		}
		j -= n
	}
	return s[i:j], i
}

// agoShape reports whether the words ahead read "N <word> ago" or
// "N <word> from now": a phrase of a number of units, whatever the unit.
func agoShape(sc scanner) bool {
	sc.next()
	sc.next()
	w := sc.next()
	return is(w, "ago") || (is(w, "from") && is(sc.next(), "now"))
}

// isUnitWord reports whether the word after the next i words is a unit.
func isUnitWord(sc scanner, i int) bool {
	for ; i > 0; i-- {
		sc.next()
	}
	u, _ := unitOf(sc.next())
	return u != unitNone
}

// isoDay reads YYYY-MM-DD; ok is false when s does not have that shape.
func isoDay(s string, off int) (day int64, ok bool, err error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' || !allDigits(s[:4]) || !allDigits(s[5:7]) || !allDigits(s[8:]) {
		return 0, false, nil
	}
	y, m, d := atoi(s[:4]), atoi(s[5:7]), atoi(s[8:])
	t := token{text: s, pos: off}
	switch {
	case y < minYear:
		return 0, true, newError(ErrInvalidDate, t, "there is no year 0000")
	case m < 1 || m > 12:
		return 0, true, newError(ErrInvalidDate, t, "there is no month "+s[5:7])
	case d < 1 || d > daysIn(y, m):
		return 0, true, newError(ErrInvalidDate, t, time.Month(m).String()+" "+s[:4]+" has no day "+s[8:])
	}
	return daysFromCivil(y, m, d), true, nil
}

var numberWords = [...]string{"one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}

var weekdayNames = [...]string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

func oneOf(t token, words []string) bool {
	for _, w := range words {
		if is(t, w) {
			return true
		}
	}
	return false
}

// naturalUnit: the units go-naturaldate and this whitelist share; quarter is
// not one of them.
func naturalUnit(t token) bool {
	u, _ := unitOf(t)
	return u == unitDay || u == unitWeek || u == unitMonth || u == unitYear
}

func naturalSingularUnit(t token) bool {
	u, plural := unitOf(t)
	return !plural && (u == unitDay || u == unitWeek || u == unitMonth || u == unitYear)
}

// naturalNumber: 1 to 4 digits without a leading zero, or one to ten.
func naturalNumber(t token) bool {
	if allDigits(t.text) {
		return len(t.text) <= 4 && t.text[0] != '0'
	}
	return oneOf(t, numberWords[:])
}

// naturalShape reports whether words form one of the phrases ParseDay hands
// to go-naturaldate.
func naturalShape(w []token) bool {
	switch len(w) {
	case 1:
		return oneOf(w[0], []string{"now", "tomorrow"}) || oneOf(w[0], weekdayNames[:])
	case 2:
		return (is(w[0], "last") || is(w[0], "next")) && oneOf(w[1], weekdayNames[:])
	case 3:
		return (naturalNumber(w[0]) && naturalUnit(w[1]) && is(w[2], "ago")) ||
			(is(w[0], "in") && naturalNumber(w[1]) && naturalUnit(w[2])) ||
			(is(w[0], "in") && (is(w[1], "a") || is(w[1], "an")) && naturalSingularUnit(w[2]))
	case 4:
		return naturalNumber(w[0]) && naturalUnit(w[1]) && is(w[2], "from") && is(w[3], "now")
	}
	return false
}

// monthsOrYears reports whether a phrase moves by months or years.
func monthsOrYears(words []token) bool {
	for _, w := range words {
		if u, _ := unitOf(w); u == unitMonth || u == unitYear {
			return true
		}
	}
	return false
}

func naturalDay(value string, now time.Time, what string, off int) (t time.Time, err error) {
	sc := scanner{s: value}
	var words [5]token
	n := 0
	for n < len(words) {
		tk := sc.next()
		if tk.text == "" {
			break
		}
		words[n] = tk
		n++
	}
	if n == len(words) || !naturalShape(words[:n]) {
		return time.Time{}, naturalError(words[:n])
	}
	// Hand go-naturaldate the words alone, lower case, one space apart: the
	// shape check above is then exactly what it reads.
	var b strings.Builder
	for i, tk := range words[:n] {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strings.ToLower(tk.text))
	}
	defer func() {
		if r := recover(); r != nil {
			t, err = time.Time{}, newError(ErrSyntax, words[0], fmt.Sprintf("natural date parser failed: %v", r))
		}
	}()
	// go-naturaldate moves days and weeks by multiples of 24 hours; handing
	// it now's wall clock as UTC keeps a daylight-saving change from
	// shifting the day.
	wall := time.Date(now.Year(), now.Month(), now.Day(), now.Hour(), now.Minute(), now.Second(),
		now.Nanosecond(), time.UTC)
	got, perr := naturaldate.Parse(b.String(), wall)
	if perr != nil {
		return time.Time{}, newError(ErrSyntax, words[0], "natural date parser: "+perr.Error())
	}
	// Moving by months or years keeps the day of the month, and Go
	// normalises a day the target month lacks into the next month (31 March
	// minus a month is "31 February", 3 March). Clamp to the target month's
	// last day instead: 28 February.
	if got.Day() != wall.Day() && monthsOrYears(words[:n]) {
		got = time.Date(got.Year(), got.Month(), 0, 0, 0, 0, 0, time.UTC)
	}
	y, m, d := got.Date()
	if y < minYear || y > maxYear {
		return time.Time{}, newError(ErrOutOfRange, words[0], "the day falls outside the years 0001-9999")
	}
	return existingDay(daysFromCivil(y, int(m), d), now.Location(), what, off)
}

// naturalError says why words are not a day ParseDay reads: a period of the
// grammar, a unit it does not know, or another phrase.
func naturalError(w []token) *Error {
	switch {
	case len(w) == 2 && oneOf(w[0], []string{"last", "next", "this", "previous"}) && isUnit(w[1]):
		return newError(ErrSyntax, w[0], "\""+w[0].text+" "+w[1].text+"\" is a period, not a day: "+
			"write \"1 "+w[1].text+" ago\", \"in 1 "+w[1].text+"\" or a date")
	case len(w) == 3 && is(w[2], "ago") && naturalNumber(w[0]) && !naturalUnit(w[1]):
		return unknownUnit(w[1])
	case len(w) == 3 && is(w[0], "in") && (naturalNumber(w[1]) || is(w[1], "a") || is(w[1], "an")) && !naturalUnit(w[2]):
		return unknownUnit(w[2])
	case len(w) == 4 && is(w[2], "from") && is(w[3], "now") && naturalNumber(w[0]) && !naturalUnit(w[1]):
		return unknownUnit(w[1])
	}
	return newError(ErrSyntax, w[0], "not a day: expected YYYY-MM-DD, DD MMMM YYYY, DD-MM-YYYY, "+
		"today, yesterday, tomorrow, a weekday, or a phrase such as \"3 days ago\", \"in 2 weeks\", \"next friday\"")
}

func isUnit(t token) bool {
	u, _ := unitOf(t)
	return u != unitNone
}

func unknownUnit(t token) *Error {
	return newError(ErrSyntax, t, "unknown unit "+t.text+": expected days, weeks, months or years")
}
