package appkit

import (
	"encoding/json"
	"fmt"
	"time"
)

// Day is a calendar day without a time of day or a zone: the value of a
// day field (a date field of subType day, sent as YYYY-MM-DD) and of a
// datebox filter. The zero Day is "no day" and is sent as null.
type Day struct {
	// Year is the year, such as 2026.
	Year int
	// Month is the month of the year.
	Month time.Month
	// Day is the day of the month, 1 to 31.
	Day int
}

// DayOf returns the day of t in t's location.
func DayOf(t time.Time) Day {
	y, m, d := t.Date()
	return Day{y, m, d}
}

// ParseDay reads a day written YYYY-MM-DD.
func ParseDay(s string) (Day, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil || len(s) != len(time.DateOnly) {
		return Day{}, fmt.Errorf("want a day as YYYY-MM-DD, got %q", s)
	}
	return DayOf(t), nil
}

// IsZero reports whether d is the zero Day.
func (d Day) IsZero() bool { return d == Day{} }

// Time returns midnight at the start of d in loc (nil means UTC).
func (d Day) Time(loc *time.Location) time.Time {
	if loc == nil {
		loc = time.UTC
	}
	return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, loc)
}

// String returns d as YYYY-MM-DD.
func (d Day) String() string { return string(d.appendTo(nil)) }

// appendTo appends d as YYYY-MM-DD (the year with at least four digits).
func (d Day) appendTo(b []byte) []byte {
	y := d.Year
	if y < 0 {
		b = append(b, '-')
		y = -y
	}
	switch {
	case y < 10:
		b = append(b, '0', '0', '0')
	case y < 100:
		b = append(b, '0', '0')
	case y < 1000:
		b = append(b, '0')
	}
	b = appendInt(b, int64(y))
	b = appendTwo(append(b, '-'), int(d.Month))
	return appendTwo(append(b, '-'), d.Day)
}

// appendTwo appends n with at least two digits. A month or day outside
// the calendar (negative, or of three digits) is written in full, so that
// the output stays digits: the value is then reported, never a broken
// page.
func appendTwo(b []byte, n int) []byte {
	if n >= 0 && n < 100 {
		return append(b, byte('0'+n/10), byte('0'+n%10))
	}
	return appendInt(b, int64(n))
}

// MarshalJSON writes "YYYY-MM-DD", or null for the zero Day.
func (d Day) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	b := append([]byte{'"'}, d.appendTo(nil)...)
	return append(b, '"'), nil
}

// UnmarshalJSON reads "YYYY-MM-DD" or null.
func (d *Day) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*d = Day{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("want a day as \"YYYY-MM-DD\": %w", err)
	}
	v, err := ParseDay(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}
