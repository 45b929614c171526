package tracker

import (
	"time"

	"github.com/appkitgo/appkit/daterange"
)

// dayRange is the due filter: the days that overlap [lo, hi]; an unset side
// is open.
type dayRange struct {
	lo, hi       time.Time
	hasLo, hasHi bool
}

// dueRange reads a date filter's value. The service sends timezone-naive
// wall-clock times, which daterange decodes as UTC, the zone of due days.
func dueRange(r daterange.Range) dayRange {
	var d dayRange
	if r.Min != nil {
		d.lo, d.hasLo = *r.Min, true
	}
	if r.Max != nil {
		d.hi, d.hasHi = *r.Max, true
	}
	return d
}

// contains reports whether the day starting at midnight day overlaps the
// range.
func (d dayRange) contains(day time.Time) bool {
	if d.hasLo && !day.Add(24*time.Hour).After(d.lo) {
		return false
	}
	if d.hasHi && day.After(d.hi) {
		return false
	}
	return true
}
