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
}

// FuzzParse: Parse never panics; an error is an *Error pointing into the
// statement; a success has Min <= Max, day-aligned bounds, and survives
// MarshalJSON then UnmarshalJSON as the same wall clock.
func FuzzParse(f *testing.F) {
	for i, s := range fuzzSeeds {
		f.Add(s, int64(1497312000+i*86400*37), int16(i*45))
	}
	f.Fuzz(func(t *testing.T, stmt string, unix int64, offMinutes int16) {
		// Any instant of the years 1970-2100, any offset within ±14h.
		unix = floorMod(unix, 4102444800)
		loc := time.FixedZone("fuzz", int(offMinutes)%(14*60)*60)
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
		if r.Min != nil && r.Max != nil && r.Min.After(*r.Max) {
			t.Fatalf("%q: Min %v after Max %v", stmt, r.Min, r.Max)
		}
		if r.Min != nil && r.Min.Format("15:04:05.000") != "00:00:00.000" {
			t.Fatalf("%q: Min %v is not the start of a day", stmt, r.Min)
		}
		if r.Max != nil && r.Max.Format("15:04:05.000") != "23:59:59.999" {
			t.Fatalf("%q: Max %v is not the end of a day", stmt, r.Max)
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
