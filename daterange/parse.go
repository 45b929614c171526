package daterange

import (
	"time"
)

// MaxStatementLen is the longest statement Parse reads, in bytes; the longest
// statement of the language with sensible values is well under 100 bytes.
const MaxStatementLen = 256

// maxNumberDigits bounds N in "last N units": six digits already reach past
// the years the wire form can hold, for every unit.
const maxNumberDigits = 6

// Option changes how Parse evaluates a statement.
type Option func(*config)

type config struct {
	loc *time.Location
}

// WithLocation evaluates the statement in loc instead of the location of
// now: "now" is moved into loc, and the bounds are wall-clock times there.
// A nil loc is ignored.
func WithLocation(loc *time.Location) Option {
	return func(c *config) {
		if loc != nil {
			c.loc = loc
		}
	}
}

// Parse evaluates a statement of the date-range language relative to now.
//
// The statement is evaluated in now's location (or the one given with
// WithLocation): "today" is now's calendar day there, and the bounds of the
// result are wall-clock times in that location: a closed Min is 00:00:00.000
// of its day, a closed Max 23:59:59.999 of its day. Where a daylight-saving
// change skips midnight, Min is the first instant of the day instead (01:00,
// typically); where it repeats the day's last hour, Max is the later
// 23:59:59.999, so that the range holds every instant of its days.
// A range none of whose days exist in the location (Pacific/Apia skipped
// 30 December 2011) is an ErrInvalidDate error.
//
// Every error is an *Error; errors.Is matches its Kind against ErrSyntax,
// ErrInvalidDate, ErrStartAfterEnd and ErrOutOfRange.
func Parse(statement string, now time.Time, opts ...Option) (Range, error) {
	loc := now.Location()
	if len(opts) > 0 {
		if l := applyOptions(opts); l != nil {
			loc = l
			now = now.In(loc)
		}
	}
	res, err := parseStatement(statement, now)
	if err != nil {
		return Range{}, err
	}
	// One allocation holds both bounds.
	pair := new([2]time.Time)
	var r Range
	if res.hasLo {
		pair[0] = dayTime(res.lo, false, loc)
		r.Min = &pair[0]
	}
	if res.hasHi {
		pair[1] = dayTime(res.hi, true, loc)
		r.Max = &pair[1]
	}
	if res.hasLo && res.hasHi && pair[0].After(pair[1]) {
		// Every day of the range was skipped by a zone change (Pacific/Apia
		// went from 29 to 31 December 2011).
		w, off := trimSpace(statement)
		return Range{}, newError(ErrInvalidDate, token{text: w, pos: off},
			"no instant of the range exists in "+loc.String()+": a zone change skips its days")
	}
	return r, nil
}

// applyOptions returns the location the options choose, or nil. It is apart
// from Parse so that a call without options allocates no config.
func applyOptions(opts []Option) *time.Location {
	var cfg config
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	return cfg.loc
}

// dayTime returns the first instant (end false) or the last millisecond (end
// true) of a day in loc.
func dayTime(day int64, end bool, loc *time.Location) time.Time {
	if end {
		// The last millisecond of a day is one before the first instant of
		// the next: right also where the day's last hour is repeated (the
		// later 23:59:59.999) or where the next midnight is skipped.
		return dayStart(day+1, loc).Add(-time.Millisecond)
	}
	return dayStart(day, loc)
}

// dayStart returns the first instant of a day in loc: its midnight, or where
// a daylight-saving change skips midnight, the first instant after the
// change (01:00 of that day, typically); where midnight is repeated, the
// earlier one. time.Date does not promise which side of a skipped or
// repeated wall clock it picks: for a skipped midnight it may answer 23:00
// of the day before.
func dayStart(day int64, loc *time.Location) time.Time {
	y, m, d := civilFromDays(day)
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, loc)
	_, off := t.Zone()
	if t.Unix()+int64(off) == day*secondsPerDay {
		// t is a midnight of the day; it is the first instant of the day
		// unless a zone change happened in the day before it.
		start, _ := t.ZoneBounds()
		if start.IsZero() || t.Unix()-start.Unix() >= maxDayGap {
			return t // the common case
		}
	}
	return firstInstant(day, loc, t)
}

// maxDayGap is more than any span from an instant on the day before a day to
// the start of that day: a day of 24 hours plus a zone change of at most a
// day.
const maxDayGap = 50 * 3600

// firstInstant finds the first instant whose wall clock in loc is on the day
// or later, walking forward through loc's zone periods from an instant
// surely on an earlier day; within a period the wall clock only moves
// forward, so the day starts either at a midnight inside a period or at a
// zone change. fallback is returned if loc's periods do not say.
func firstInstant(day int64, loc *time.Location, fallback time.Time) time.Time {
	x := time.Unix(day*secondsPerDay-maxDayGap, 0).In(loc)
	for i := 0; i < 16; i++ {
		_, off := x.Zone()
		_, end := x.ZoneBounds()
		mid := day*secondsPerDay - int64(off) // midnight of the day at this offset
		if mid >= x.Unix() && (end.IsZero() || mid < end.Unix()) {
			return time.Unix(mid, 0).In(loc)
		}
		if end.IsZero() || !end.After(x) {
			break
		}
		x = end
		if localDay(x) >= day {
			return x
		}
	}
	return fallback
}

const secondsPerDay = 86400

// localDay returns the day number of t's wall clock in its location.
func localDay(t time.Time) int64 {
	_, off := t.Zone()
	return floorDiv(t.Unix()+int64(off), secondsPerDay)
}

// result is a parsed statement as day numbers: lo is the first day and hi the
// last day of the range, each present or open.
type result struct {
	lo, hi       int64
	hasLo, hasHi bool
}

// span is the value of one term: its first and last day. For "N units ago"
// the two differ in meaning (lo is the lower bound it gives, hi the upper
// bound, one day before lo).
type span struct {
	lo, hi int64
}

type token struct {
	text string
	pos  int
}

// scanner splits a statement into words at spaces, without allocating.
// Spaces are ASCII whitespace and the Unicode spaces people paste: U+00A0
// (no-break space), U+2000-U+200A, U+202F and U+3000. Positions are byte
// offsets.
type scanner struct {
	s string
	i int
}

// spaceLen returns the length in bytes of the space at s[i], or 0.
func spaceLen(s string, i int) int {
	switch c := s[i]; {
	case c < 0x80 && isASCIISpace(c):
		return 1
	case c < 0xC2:
		return 0
	case c == 0xC2: // U+00A0 is C2 A0
		if i+1 < len(s) && s[i+1] == 0xA0 {
			return 2
		}
	case c == 0xE2: // U+2000-U+200A are E2 80 80-8A, U+202F is E2 80 AF
		if i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] >= 0x80 && s[i+2] <= 0x8A || s[i+2] == 0xAF) {
			return 3
		}
	case c == 0xE3: // U+3000 is E3 80 80
		if i+2 < len(s) && s[i+1] == 0x80 && s[i+2] == 0x80 {
			return 3
		}
	}
	return 0
}

// spaceLenBefore returns the length in bytes of a space that ends at s[j-1],
// or 0.
func spaceLenBefore(s string, j int) int {
	for n := 1; n <= 3 && n <= j; n++ {
		if spaceLen(s, j-n) == n {
			return n
		}
	}
	return 0
}

// asciiSpaceMask has the bits of the ASCII whitespace bytes.
const asciiSpaceMask = 1<<' ' | 1<<'\t' | 1<<'\n' | 1<<'\v' | 1<<'\f' | 1<<'\r'

// isASCIISpace reports whether c (below 0x80) is ASCII whitespace.
func isASCIISpace(c byte) bool { return c < 64 && asciiSpaceMask>>c&1 != 0 }

func (sc *scanner) next() token {
	s := sc.s
	i := sc.i
	for i < len(s) {
		if c := s[i]; c < 0x80 {
			if !isASCIISpace(c) {
				break
			}
			i++
		} else if n := spaceLen(s, i); n > 0 {
			i += n
		} else {
			break
		}
	}
	start := i
	for i < len(s) {
		if c := s[i]; c < 0x80 {
			if isASCIISpace(c) {
				break
			}
		} else if spaceLen(s, i) > 0 {
			break
		}
		i++
	}
	sc.i = i
	return token{text: s[start:i], pos: start}
}

func (sc *scanner) peek() token {
	save := sc.i
	t := sc.next()
	sc.i = save
	return t
}

// is reports whether t is the keyword kw (lower-case ASCII), in any case.
func is(t token, kw string) bool {
	return eqFold(t.text, kw)
}

func eqFold(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// unitOf reads a unit word: its unit and whether it is plural.
func unitOf(t token) (unit, bool) {
	s := t.text
	plural := false
	if n := len(s); n > 3 && (s[n-1] == 's' || s[n-1] == 'S') {
		s, plural = s[:n-1], true
	}
	switch {
	case eqFold(s, "day"):
		return unitDay, plural
	case eqFold(s, "week"):
		return unitWeek, plural
	case eqFold(s, "month"):
		return unitMonth, plural
	case eqFold(s, "quarter"):
		return unitQuarter, plural
	case eqFold(s, "year"):
		return unitYear, plural
	}
	return unitNone, false
}

var monthNames = [12]string{"january", "february", "march", "april", "may", "june",
	"july", "august", "september", "october", "november", "december"}

// monthOf reads a month name, full or its first three letters, in any
// case; it returns 0 for anything else.
func monthOf(s string) int {
	for i, name := range monthNames {
		if eqFold(s, name) || eqFold(s, name[:3]) {
			return i + 1
		}
	}
	return 0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

type parser struct {
	src string
	sc  scanner
	c   clock
}

func parseStatement(s string, now time.Time) (result, error) {
	if len(s) > MaxStatementLen {
		return result{}, newError(ErrSyntax, token{text: s, pos: 0},
			"the statement is longer than 256 bytes")
	}
	y, m, d := now.Date()
	p := parser{src: s, sc: scanner{s: s}}
	p.c = clock{today: daysFromCivil(y, int(m), d), y: y, m: int(m)}
	return p.statement()
}

const (
	expectTerm = "expected a date (DD MMMM YYYY, DD-MM-YYYY, ...), today, yesterday, or a period (this, last or previous)"
	expectDay  = "expected a date (DD MMMM YYYY, DD-MM-YYYY, ...), today or yesterday"
	// noPeriod explains why from and to refuse a period.
	noPeriod = `from and to take a date, today or yesterday, not a period; for a period use between ("between this week and today")`
)

// termForm says which terms a place in a statement takes.
type termForm uint8

const (
	// formAlone: a statement of one term, a day or a period.
	formAlone termForm = iota
	// formBetween: a side of between, which also takes "<unit> ago" and
	// "N <units> ago".
	formBetween
	// formDay: a side of from or to, which takes a day only: a date, today
	// or yesterday.
	formDay
)

// expect says what a place of the form takes.
func (f termForm) expect() string {
	switch f {
	case formBetween:
		return expectTerm + ", or <unit> ago, N <units> ago"
	case formDay:
		return expectDay
	}
	return expectTerm
}

func (p *parser) statement() (result, error) {
	t := p.sc.next()
	switch {
	case t.text == "":
		return result{}, newError(ErrSyntax, t, "empty statement: "+expectTerm+", or between, from or to")
	case is(t, "between"):
		a, _, err := p.side(formBetween, sideLower)
		if err != nil {
			return result{}, err
		}
		if and := p.sc.next(); !is(and, "and") {
			return result{}, newError(ErrSyntax, and, `expected "and" after the start of "between"`)
		}
		return p.closed(a, formBetween)
	case is(t, "from"):
		a, _, err := p.side(formDay, sideLower)
		if err != nil {
			return result{}, err
		}
		to := p.sc.next()
		if to.text == "" {
			return result{lo: a.lo, hasLo: true}, nil
		}
		if !is(to, "to") {
			return result{}, newError(ErrSyntax, to, `expected "to" or the end of the statement`)
		}
		return p.closed(a, formDay)
	case is(t, "to"):
		b, _, err := p.side(formDay, sideUpper)
		if err != nil {
			return result{}, err
		}
		if err := p.end(); err != nil {
			return result{}, err
		}
		return result{hi: b.hi, hasHi: true}, nil
	}
	s, err := p.term(t, formAlone, sideBoth)
	if err != nil {
		return result{}, err
	}
	if err := p.end(); err != nil {
		return result{}, err
	}
	return result{lo: s.lo, hi: s.hi, hasLo: true, hasHi: true}, nil
}

// closed reads the upper side (a place of form) and the end of the
// statement, and joins the lower side a and that upper side into a closed
// range.
func (p *parser) closed(a span, form termForm) (result, error) {
	b, bt, err := p.side(form, sideUpper)
	if err != nil {
		return result{}, err
	}
	if err := p.end(); err != nil {
		return result{}, err
	}
	if a.lo > b.hi {
		return result{}, newError(ErrStartAfterEnd, bt, "the range would start on "+
			formatDay(a.lo)+", after it ends on "+formatDay(b.hi))
	}
	return result{lo: a.lo, hi: b.hi, hasLo: true, hasHi: true}, nil
}

func formatDay(day int64) string {
	y, m, d := civilFromDays(day)
	b := make([]byte, 0, 10)
	b = appendInt(b, y, 4)
	b = append(b, '-')
	b = appendInt(b, m, 2)
	b = append(b, '-')
	b = appendInt(b, d, 2)
	return string(b)
}

func appendInt(b []byte, n, width int) []byte {
	var buf [20]byte
	i := len(buf)
	for n > 0 || width > 0 {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
		width--
	}
	return append(b, buf[i:]...)
}

// end checks that nothing follows the statement.
func (p *parser) end() error {
	if t := p.sc.next(); t.text != "" {
		return newError(ErrSyntax, t, "unexpected word after the end of the statement")
	}
	return nil
}

// side reads one side of between, from or to (form says which terms it
// takes), and returns it with its first word; which says which bound of it
// the statement uses.
func (p *parser) side(form termForm, which sideUse) (span, token, error) {
	t := p.sc.next()
	s, err := p.term(t, form, which)
	return s, t, err
}

// sideUse says which bounds of a term the statement uses: a single term
// both, the lower side of between or from its lo, the upper side its hi.
type sideUse uint8

const (
	sideBoth sideUse = iota
	sideLower
	sideUpper
)

// term reads one term whose first word is t: a date, today or yesterday; a
// period unless form is formDay; "<unit> ago" or "N <units> ago" only when
// form is formBetween.
func (p *parser) term(t token, form termForm, which sideUse) (span, error) {
	switch {
	case t.text == "":
		return span{}, newError(ErrSyntax, t, form.expect())
	case is(t, "today"):
		return p.check(span{p.c.today, p.c.today}, t, which)
	case is(t, "yesterday"):
		return p.check(span{p.c.today - 1, p.c.today - 1}, t, which)
	case is(t, "next"):
		return span{}, newError(ErrSyntax, t, `there is no "next": periods are this, last or previous`)
	case is(t, "this"), is(t, "last"), is(t, "previous"):
		if form == formDay {
			return span{}, newError(ErrSyntax, t, noPeriod)
		}
		return p.period(t, which)
	case isDigit(t.text[0]):
		if u, plural := unitOf(p.sc.peek()); u != unitNone {
			return p.ago(t, u, plural, form, which)
		}
		return p.date(t)
	}
	if u, plural := unitOf(t); u != unitNone {
		if plural {
			return span{}, newError(ErrSyntax, t, "a plural unit goes with a number (2 "+t.text+" ago); alone the unit is singular")
		}
		return p.ago(t, u, false, form, which)
	}
	return span{}, newError(ErrSyntax, t, "unknown word; "+form.expect())
}

// ago reads "<unit> ago" (t is the unit) or "N <units> ago" (t is N), which
// only a side of between (formBetween) takes.
func (p *parser) ago(t token, u unit, plural bool, form termForm, which sideUse) (span, error) {
	if form != formBetween {
		return span{}, newError(ErrSyntax, t, `"ago" is only allowed inside between ... and ...; `+form.expect())
	}
	k := int64(1)
	if isDigit(t.text[0]) {
		var err error
		if k, err = number(t); err != nil {
			return span{}, err
		}
		ut := p.sc.next()
		if !plural {
			return span{}, newError(ErrSyntax, ut, "after a number the unit is plural")
		}
	}
	if a := p.sc.next(); !is(a, "ago") {
		return span{}, newError(ErrSyntax, a, `expected "ago"`)
	}
	start := p.c.start(u, k)
	return p.check(span{lo: start, hi: start - 1}, t, which)
}

// period reads the rest of "this <unit>", "last <unit>", "last N <units>",
// "previous <unit>" or "previous N <units>"; t is the keyword. "this" takes
// one unit and no number.
func (p *parser) period(t token, which sideUse) (span, error) {
	this, previous := is(t, "this"), is(t, "previous")
	want := "expected a unit (day, week, month, quarter, year) or a number"
	if this {
		want = "expected a unit (day, week, month, quarter, year)"
	}
	nt := p.sc.next()
	k := int64(1)
	u, plural := unitOf(nt)
	switch {
	case nt.text == "":
		return span{}, newError(ErrSyntax, nt, want+" after "+t.text)
	case u != unitNone:
		if plural {
			return span{}, newError(ErrSyntax, nt, "a plural unit goes with a number (last 2 weeks); alone the unit is singular")
		}
	case isDigit(nt.text[0]) && this:
		return span{}, newError(ErrSyntax, nt, `"this" takes one unit and no number ("this week"); for N units use "last N units"`)
	case isDigit(nt.text[0]):
		var err error
		if k, err = number(nt); err != nil {
			return span{}, err
		}
		ut := p.sc.next()
		if u, plural = unitOf(ut); u == unitNone {
			return span{}, newError(ErrSyntax, ut, "expected a unit: days, weeks, months, quarters or years")
		}
		if !plural {
			return span{}, newError(ErrSyntax, ut, "after a number the unit is plural")
		}
	default:
		return span{}, newError(ErrSyntax, nt, want)
	}
	if previous {
		return p.check(span{lo: p.c.start(u, k), hi: p.c.end(u, 1)}, nt, which)
	}
	return p.check(span{lo: p.c.start(u, k-1), hi: p.c.end(u, 0)}, nt, which)
}

// number reads N: digits, at least 1, no leading zero.
func number(t token) (int64, error) {
	switch {
	case !allDigits(t.text):
		return 0, newError(ErrSyntax, t, "expected a number of units (1, 2, ...)")
	case t.text == "0":
		return 0, newError(ErrSyntax, t, "the number of units must be at least 1")
	case t.text[0] == '0':
		return 0, newError(ErrSyntax, t, "a number of units has no leading zero")
	case len(t.text) > maxNumberDigits:
		return 0, newError(ErrOutOfRange, t, "too many units")
	}
	return int64(atoi(t.text)), nil
}

// check reports a span whose bounds in use (which) reach outside the years
// the wire form holds; a bound the statement does not use is not checked.
func (p *parser) check(s span, t token, which sideUse) (span, error) {
	loBad := s.lo < minDay || s.lo > maxDay
	hiBad := s.hi < minDay || s.hi > maxDay
	if (loBad && which != sideUpper) || (hiBad && which != sideLower) {
		return span{}, newError(ErrOutOfRange, t, "the range reaches outside the years 0001-9999")
	}
	return s, nil
}

// date reads DD-MMMM-YYYY or DD-MM-YYYY (t holds it all) or DD MMMM YYYY or
// DD MM YYYY (t is DD).
func (p *parser) date(t token) (span, error) {
	var ds, ms, ys string
	whole := t
	if i := indexByte(t.text, '-'); i >= 0 {
		ds = t.text[:i]
		rest := t.text[i+1:]
		j := indexByte(rest, '-')
		if j < 0 {
			return span{}, newError(ErrSyntax, t, "expected a date as DD-MMMM-YYYY or DD-MM-YYYY")
		}
		ms, ys = rest[:j], rest[j+1:]
	} else {
		mt := p.sc.next()
		yt := p.sc.next()
		if mt.text == "" || yt.text == "" {
			end := p.sc.i
			return span{}, newError(ErrSyntax, token{text: p.src[t.pos:end], pos: t.pos},
				"expected a date as DD MMMM YYYY or DD MM YYYY")
		}
		ds, ms, ys = t.text, mt.text, yt.text
		whole = token{text: p.src[t.pos : yt.pos+len(yt.text)], pos: t.pos}
	}
	month := monthOf(ms)
	if month == 0 && allDigits(ms) && len(ms) <= 2 {
		month = atoi(ms)
		if month < 1 || month > 12 {
			return span{}, newError(ErrInvalidDate, whole, "there is no month "+ms)
		}
	}
	if month == 0 || !allDigits(ds) || len(ds) > 2 || !allDigits(ys) || len(ys) != 4 {
		return span{}, newError(ErrSyntax, whole,
			"expected a date as DD MMMM YYYY, DD-MMMM-YYYY, DD MM YYYY or DD-MM-YYYY (month names full or three letters)")
	}
	day, year := atoi(ds), atoi(ys)
	if year < minYear {
		return span{}, newError(ErrInvalidDate, whole, "there is no year 0000")
	}
	if day < 1 || day > daysIn(year, month) {
		return span{}, newError(ErrInvalidDate, whole, time.Month(month).String()+" "+ys+" has no day "+ds)
	}
	d := daysFromCivil(year, month, day)
	return span{d, d}, nil
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
