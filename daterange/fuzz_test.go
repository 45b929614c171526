package daterange

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

var fuzzSeeds = []string{
	"today", "yesterday", "this week", "last 2 weeks", "previous 3 months", "previous quarter",
	"between 6 quarters ago and 2 months ago", "between week ago and today", "from 1-Jan-2017",
	"to 31 dec 2017", "from 01-01-2017 to yesterday", "13 06 2017", "30 Feb 2017", "last 0 days",
	"next week", "3 months ago", "last 999999 years", "between today and yesterday", "",
	"this 2 weeks", "from this week", "to last month", "from today to previous year",
	"between this week and today", "from 1 01 2017 to 13 06 2017",
}

// fuzzZones are the named zones FuzzParse evaluates in besides fixed
// offsets: daylight saving at midnight (skipped and repeated), at other
// hours, by 30 minutes) and a skipped day (Pacific/Apia, 2011-12-30).
var fuzzZones = []string{"America/Sao_Paulo", "America/Santiago", "America/Havana", "America/Asuncion",
	"Asia/Beirut", "America/Los_Angeles", "Australia/Lord_Howe", "Pacific/Apia"}

// FuzzParse: Parse never panics; an error is an *Error pointing into the
// statement; a success is in the language as far as allowedForms checks it,
// has Min <= Max, Min the first instant of its day and
// Max the last millisecond of its day (00:00:00.000 and 23:59:59.999 unless
// a daylight-saving change skips midnight), and survives MarshalJSON then
// UnmarshalJSON losslessly as wall-clock text. The wire form is
// timezone-naive, so that is the property it has: the instants do not
// survive (UnmarshalJSON reads a naive time as UTC), the wall clocks do.
//
// zone picks the location: below len(fuzzZones) a named zone with daylight
// saving, otherwise the fixed offset offMinutes.
func FuzzParse(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add(s, int64(1497312000+i*86400*37), int16(i*45), uint8(i))
	}
	f.Add("today", int64(1508079600), int16(0), uint8(0))      // Sao Paulo, 2017-10-15: midnight skipped
	f.Add("yesterday", int64(1508166000), int16(0), uint8(0))  // the day after
	f.Add("this month", int64(1518879600), int16(0), uint8(0)) // Sao Paulo, 2018-02-17: 23:00 repeated
	f.Add("between 3 days ago and today", int64(1534086000), int16(0), uint8(1))
	f.Add("today", int64(1489330800), int16(0), uint8(2))     // Havana, 2017-03-12
	f.Add("today", int64(1506870000), int16(0), uint8(3))     // Asuncion, 2017-10-01
	f.Add("today", int64(1497312000), int16(330), uint8(255)) // +05:30
	zones := make([]*time.Location, len(fuzzZones))
	for i, name := range fuzzZones {
		loc, err := time.LoadLocation(name)
		if err != nil {
			f.Fatal(err)
		}
		zones[i] = loc
	}
	f.Fuzz(func(t *testing.T, stmt string, unix int64, offMinutes int16, zone uint8) {
		// Any instant of the years 1970-2100, any offset within ±14h.
		unix = floorMod(unix, 4102444800)
		loc := time.FixedZone("fuzz", int(offMinutes)%(14*60)*60)
		if int(zone) < len(zones) {
			loc = zones[zone]
		}
		now := time.Unix(unix, 0).In(loc)
		r, err := Parse(stmt, now)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			if pe.Pos < 0 || pe.Pos > len(stmt) || len(pe.Word) > maxErrWord || pe.Msg == "" {
				t.Fatalf("bad error %#v for %q", pe, stmt)
			}
			if !errors.Is(err, ErrSyntax) && !errors.Is(err, ErrInvalidDate) &&
				!errors.Is(err, ErrStartAfterEnd) && !errors.Is(err, ErrOutOfRange) {
				t.Fatalf("error of unknown kind: %v", err)
			}
			return
		}
		if r.Min == nil && r.Max == nil {
			t.Fatalf("%q: success with an open range", stmt)
		}
		if msg := allowedForms(stmt); msg != "" {
			t.Fatalf("%q: accepted, but %s", stmt, msg)
		}
		if r.Min != nil && r.Max != nil && r.Min.After(*r.Max) {
			t.Fatalf("%q: Min %v after Max %v", stmt, r.Min, r.Max)
		}
		if r.Min != nil {
			if r.Min.Location() != loc || localDay(r.Min.Add(-time.Nanosecond)) >= localDay(*r.Min) {
				t.Fatalf("%q: Min %v is not the first instant of a day in %v", stmt, r.Min, loc)
			}
			if c := r.Min.Format("15:04:05.000"); c != "00:00:00.000" && r.Min.Add(-time.Nanosecond).Format("15:04") != "23:59" {
				t.Fatalf("%q: Min %v is neither midnight nor just after a skipped one", stmt, r.Min)
			}
		}
		if r.Max != nil {
			if r.Max.Location() != loc || localDay(r.Max.Add(time.Millisecond)) <= localDay(*r.Max) ||
				r.Max.Format("15:04:05.000") != "23:59:59.999" {
				t.Fatalf("%q: Max %v is not the last millisecond of a day in %v", stmt, r.Max, loc)
			}
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("%q: marshal: %v", stmt, err)
		}
		var back Range
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%q: %s does not read back: %v", stmt, b, err)
		}
		b2, err := json.Marshal(back)
		if err != nil || string(b2) != string(b) {
			t.Fatalf("%q: %s read back as %s (%v)", stmt, b, b2, err)
		}
	})
}

// FuzzUnmarshalJSON: the wire decoder never panics, and what it accepts
// writes out and reads back to the same text.
func FuzzUnmarshalJSON(f *testing.F) {
	for _, s := range []string{
		`{"_min":"2017-06-13T00:00:00.000","_max":"2017-06-13T23:59:59.999"}`,
		`{"_min":"2017-06-13T00:00:00"}`, `{"_max":null}`, `{}`, `null`,
		`{"_min":"2017-06-13T00:00:00.000+02:00"}`, `{"_min":42}`, `{"x":1}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Range
		if err := r.UnmarshalJSON(data); err != nil {
			return
		}
		if r.Min != nil && r.Max != nil && r.Min.After(*r.Max) {
			t.Fatalf("accepted Min after Max: %s", data)
		}
		b, err := r.MarshalJSON()
		if err != nil {
			return // a year the wire layout cannot hold
		}
		var back Range
		if err := back.UnmarshalJSON(b); err != nil {
			t.Fatalf("%s does not read back: %v", b, err)
		}
		if b2, _ := back.MarshalJSON(); string(b2) != string(b) {
			t.Fatalf("%s read back as %s", b, b2)
		}
	})
}

// FuzzParseDay: ParseDay never panics, and a success is a midnight of the
// years 0001-9999 in now's location.
func FuzzParseDay(f *testing.F) {
	for _, s := range []string{"2017-06-01", "13 June 2017", "today", "3 days ago", "in a week",
		"next friday", "5 days from now", "last year", "yesterday at 10am", "9999 years ago"} {
		f.Add(s, int64(1497312000))
	}
	f.Fuzz(func(t *testing.T, value string, unix int64) {
		now := time.Unix(floorMod(unix, 4102444800), 0).UTC()
		d, err := ParseDay(value, now)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			return
		}
		if d.Location() != time.UTC || d.Hour() != 0 || d.Minute() != 0 || d.Second() != 0 || d.Nanosecond() != 0 {
			t.Fatalf("%q: %v is not midnight UTC", value, d)
		}
		if d.Year() < minYear || d.Year() > maxYear {
			t.Fatalf("%q: year %d", value, d.Year())
		}
	})
}

// allowedForms checks two rules of the language on an accepted statement
// word by word: "this" takes one unit and no number, and a statement of from
// or to holds days only (a date, today or yesterday), no period and no
// "ago". It returns what is wrong, or "".
func allowedForms(stmt string) string {
	sc := scanner{s: stmt}
	first := sc.next()
	fromTo := is(first, "from") || is(first, "to")
	for t := first; t.text != ""; t = sc.next() {
		if is(t, "this") {
			if n := sc.peek(); n.text != "" && isDigit(n.text[0]) {
				return `"this" is followed by a number`
			}
		}
		if fromTo && (is(t, "this") || is(t, "last") || is(t, "previous") || is(t, "ago")) {
			return "a statement of from or to holds " + t.text
		}
	}
	return ""
}
