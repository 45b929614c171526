package daterange

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zone tests must not depend on the machine's zoneinfo
)

// wantBounds checks the bounds of r against civil days ("2017-06-13": Min
// at 00:00:00.000, Max at 23:59:59.999) or whole wall clocks
// ("2017-10-15T01:00:00.000"); "" is an open side.
func wantBounds(t *testing.T, r Range, min, max string, loc *time.Location) {
	t.Helper()
	check := func(side string, got *time.Time, want string, clockSuffix string) {
		t.Helper()
		if want == "" {
			if got != nil {
				t.Errorf("%s = %v, want open", side, got.Format(WireLayout))
			}
			return
		}
		if got == nil {
			t.Errorf("%s open, want %s", side, want)
			return
		}
		if !strings.Contains(want, "T") {
			want += clockSuffix
		}
		if g := got.Format(WireLayout); g != want {
			t.Errorf("%s = %s, want %s", side, g, want)
		}
		if got.Location() != loc {
			t.Errorf("%s location = %v, want %v", side, got.Location(), loc)
		}
	}
	check("Min", r.Min, min, "T00:00:00.000")
	check("Max", r.Max, max, "T23:59:59.999")
}

type formCase struct {
	stmt     string
	min, max string // civil days; "" = open
}

// Reference instants: each table is evaluated at 10:00 UTC of its day.
var formTables = []struct {
	now   string
	cases []formCase
}{
	{"2017-06-13", []formCase{ // a Tuesday
		{"today", "2017-06-13", "2017-06-13"},
		{"yesterday", "2017-06-12", "2017-06-12"},
		{"this week", "2017-06-12", "2017-06-18"},
		{"last week", "2017-06-12", "2017-06-18"},
		{"last 2 weeks", "2017-06-05", "2017-06-18"},
		{"previous week", "2017-06-05", "2017-06-11"},
		{"previous 2 weeks", "2017-05-29", "2017-06-11"},
		{"this month", "2017-06-01", "2017-06-30"},
		{"last 3 months", "2017-04-01", "2017-06-30"},
		{"previous month", "2017-05-01", "2017-05-31"},
		{"previous 2 months", "2017-04-01", "2017-05-31"},
		{"this quarter", "2017-04-01", "2017-06-30"},
		{"last 2 quarters", "2017-01-01", "2017-06-30"},
		{"previous quarter", "2017-01-01", "2017-03-31"},
		{"this year", "2017-01-01", "2017-12-31"},
		{"previous year", "2016-01-01", "2016-12-31"},
		{"previous 2 years", "2015-01-01", "2016-12-31"},
		{"last day", "2017-06-13", "2017-06-13"},
		{"last 1 days", "2017-06-13", "2017-06-13"},
		{"last 7 days", "2017-06-07", "2017-06-13"},
		{"previous day", "2017-06-12", "2017-06-12"},
		{"previous 3 days", "2017-06-10", "2017-06-12"},
		// The lower "N units ago" is the start of the unit N before the
		// current one; the upper is one millisecond before that.
		{"between 6 quarters ago and 2 months ago", "2015-10-01", "2017-03-31"},
		{"between week ago and today", "2017-06-05", "2017-06-13"},
		{"between 2 days ago and day ago", "2017-06-11", "2017-06-11"},
		{"between year ago and this month", "2016-01-01", "2017-06-30"},
		{"between 1 January 2017 and previous month", "2017-01-01", "2017-05-31"},
		{"between previous 2 weeks and last week", "2017-05-29", "2017-06-18"},
		{"between yesterday and today", "2017-06-12", "2017-06-13"},
		{"from 1-Jan-2017", "2017-01-01", ""},
		{"between this week and today", "2017-06-12", "2017-06-13"},
		{"between last month and yesterday", "2017-06-01", "2017-06-12"},
		{"from yesterday", "2017-06-12", ""},
		{"to 31 dec 2017", "", "2017-12-31"},
		{"to 31-12-2017", "", "2017-12-31"},
		{"to today", "", "2017-06-13"},
		{"from 01-01-2017 to yesterday", "2017-01-01", "2017-06-12"},
		{"from 1 01 2017 to 13 06 2017", "2017-01-01", "2017-06-13"},
		{"from today to today", "2017-06-13", "2017-06-13"},
		{"13 June 2017", "2017-06-13", "2017-06-13"},
		{"13-jun-2017", "2017-06-13", "2017-06-13"},
		{"13-JUNE-2017", "2017-06-13", "2017-06-13"},
		{"13 06 2017", "2017-06-13", "2017-06-13"},
		{"13-06-2017", "2017-06-13", "2017-06-13"},
		{"1 jan 2000", "2000-01-01", "2000-01-01"},
		{"10-12-2017", "2017-12-10", "2017-12-10"}, // day first, then month
		{"29 Feb 2016", "2016-02-29", "2016-02-29"},
		{"  LAST \t 2\n WEEKS  ", "2017-06-05", "2017-06-18"},
		{"Between Week Ago And Today", "2017-06-05", "2017-06-13"},
	}},
	{"2016-02-29", []formCase{ // a leap day and a Monday
		{"today", "2016-02-29", "2016-02-29"},
		{"yesterday", "2016-02-28", "2016-02-28"},
		{"this week", "2016-02-29", "2016-03-06"},
		{"previous week", "2016-02-22", "2016-02-28"},
		{"this month", "2016-02-01", "2016-02-29"},
		{"previous month", "2016-01-01", "2016-01-31"},
		{"last 2 months", "2016-01-01", "2016-02-29"},
		{"this quarter", "2016-01-01", "2016-03-31"},
		{"previous quarter", "2015-10-01", "2015-12-31"},
		{"previous year", "2015-01-01", "2015-12-31"},
		{"between month ago and today", "2016-01-01", "2016-02-29"},
		{"between 4 years ago and year ago", "2012-01-01", "2014-12-31"},
	}},
	{"2020-12-31", []formCase{ // a year end inside ISO week 2020-W53
		{"this week", "2020-12-28", "2021-01-03"},
		{"previous week", "2020-12-21", "2020-12-27"},
		{"last 2 weeks", "2020-12-21", "2021-01-03"},
		{"this quarter", "2020-10-01", "2020-12-31"},
		{"this year", "2020-01-01", "2020-12-31"},
		{"previous 4 quarters", "2019-10-01", "2020-09-30"},
		{"between quarter ago and today", "2020-07-01", "2020-12-31"},
	}},
	{"2021-01-03", []formCase{ // a Sunday, still in 2020-W53
		{"this week", "2020-12-28", "2021-01-03"},
		{"previous week", "2020-12-21", "2020-12-27"},
		{"yesterday", "2021-01-02", "2021-01-02"},
		{"previous month", "2020-12-01", "2020-12-31"},
		{"previous quarter", "2020-10-01", "2020-12-31"},
		{"previous year", "2020-01-01", "2020-12-31"},
		{"between 2 weeks ago and week ago", "2020-12-14", "2020-12-20"},
	}},
	{"2017-03-31", []formCase{ // a month and quarter end
		{"previous month", "2017-02-01", "2017-02-28"},
		{"last 2 months", "2017-02-01", "2017-03-31"},
		{"this quarter", "2017-01-01", "2017-03-31"},
		{"between month ago and today", "2017-02-01", "2017-03-31"},
		{"between 13 months ago and 12 months ago", "2016-02-01", "2016-02-29"},
	}},
}

func TestParseForms(t *testing.T) {
	t.Parallel()
	for _, tab := range formTables {
		now, err := time.Parse("2006-01-02T15:04", tab.now+"T10:00")
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range tab.cases {
			t.Run(tab.now+"/"+c.stmt, func(t *testing.T) {
				r, err := Parse(c.stmt, now)
				if err != nil {
					t.Fatalf("Parse(%q): %v", c.stmt, err)
				}
				wantBounds(t, r, c.min, c.max, time.UTC)
			})
		}
	}
}

func mustLoad(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestParseZones: "now" is moved into the zone first; the bounds are wall
// clock there.
func TestParseZones(t *testing.T) {
	t.Parallel()
	ist := time.FixedZone("+05:30", 5*3600+1800)
	la := mustLoad(t, "America/Los_Angeles")
	tokyo := mustLoad(t, "Asia/Tokyo")
	kiritimati := mustLoad(t, "Pacific/Kiritimati")
	saoPaulo := mustLoad(t, "America/Sao_Paulo")
	santiago := mustLoad(t, "America/Santiago")
	havana := mustLoad(t, "America/Havana")
	asuncion := mustLoad(t, "America/Asuncion")
	beirut := mustLoad(t, "Asia/Beirut")
	cases := []struct {
		instant  string
		loc      *time.Location
		stmt     string
		min, max string
	}{
		{"2017-06-13T23:30:00Z", time.UTC, "today", "2017-06-13", "2017-06-13"},
		{"2017-06-13T23:30:00Z", ist, "today", "2017-06-14", "2017-06-14"},
		{"2017-06-13T23:30:00Z", ist, "this week", "2017-06-12", "2017-06-18"},
		{"2017-06-13T23:30:00Z", la, "today", "2017-06-13", "2017-06-13"},
		{"2017-06-14T03:00:00Z", la, "yesterday", "2017-06-12", "2017-06-12"},
		{"2017-06-18T22:00:00Z", time.UTC, "this week", "2017-06-12", "2017-06-18"},
		{"2017-06-18T22:00:00Z", tokyo, "this week", "2017-06-19", "2017-06-25"},
		{"2020-12-31T12:00:00Z", kiritimati, "this year", "2021-01-01", "2021-12-31"},
		{"2020-12-31T12:00:00Z", kiritimati, "previous year", "2020-01-01", "2020-12-31"},
		{"2017-03-31T23:00:00Z", ist, "this quarter", "2017-04-01", "2017-06-30"},
		// A daylight-saving change inside the range: the bounds are still
		// midnight and the last millisecond of their days.
		{"2017-03-15T12:00:00Z", la, "this month", "2017-03-01", "2017-03-31"},
		{"2017-11-05T12:00:00Z", la, "between 3 days ago and today", "2017-11-02", "2017-11-05"},
		// A midnight skipped by a daylight-saving change: the day starts at
		// 01:00, the first instant of that day, not on the day before.
		{"2017-10-15T15:00:00Z", saoPaulo, "today", "2017-10-15T01:00:00.000", "2017-10-15"},
		{"2017-10-16T15:00:00Z", saoPaulo, "yesterday", "2017-10-15T01:00:00.000", "2017-10-15"},
		{"2017-10-15T15:00:00Z", saoPaulo, "this week", "2017-10-09", "2017-10-15"},
		{"2017-10-20T15:00:00Z", saoPaulo, "between 5 days ago and today", "2017-10-15T01:00:00.000", "2017-10-20"},
		{"2017-10-20T15:00:00Z", saoPaulo, "between 1 jan 2017 and 5 days ago", "2017-01-01", "2017-10-14"},
		{"2017-10-15T15:00:00Z", saoPaulo, "from 15 oct 2017", "2017-10-15T01:00:00.000", ""},
		{"2018-08-12T15:00:00Z", santiago, "today", "2018-08-12T01:00:00.000", "2018-08-12"},
		{"2017-03-12T15:00:00Z", havana, "today", "2017-03-12T01:00:00.000", "2017-03-12"},
		{"2017-10-01T15:00:00Z", asuncion, "today", "2017-10-01T01:00:00.000", "2017-10-01"},
		{"2017-03-26T12:00:00Z", beirut, "today", "2017-03-26T01:00:00.000", "2017-03-26"},
		// A repeated hour at the end of the day (Sao Paulo, 2018-02-18
		// 00:00 -02 back to 2018-02-17 23:00 -03): see TestParseDSTInstants
		// for the instant.
		{"2018-02-17T15:00:00Z", saoPaulo, "today", "2018-02-17", "2018-02-17"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s/%s/%s", c.instant, c.loc, c.stmt), func(t *testing.T) {
			instant, err := time.Parse(time.RFC3339, c.instant)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Parse(c.stmt, instant, WithLocation(c.loc))
			if err != nil {
				t.Fatal(err)
			}
			wantBounds(t, r, c.min, c.max, c.loc)
			// Without the option, now's own location decides.
			r2, err := Parse(c.stmt, instant.In(c.loc))
			if err != nil {
				t.Fatal(err)
			}
			wantBounds(t, r2, c.min, c.max, c.loc)
		})
	}
}

// TestParseDSTInstants: around a daylight-saving change Min is the first
// instant of its day and Max the last millisecond of its day, as instants,
// not only as wall-clock text.
func TestParseDSTInstants(t *testing.T) {
	t.Parallel()
	cases := []struct {
		zone, now, stmt string
		min, max        string // RFC 3339 instants
	}{
		// Midnight skipped: the day starts at 01:00 -02.
		{"America/Sao_Paulo", "2017-10-15T15:00:00Z", "today", "2017-10-15T03:00:00Z", "2017-10-16T01:59:59.999Z"},
		// The day before ends just before the skipped midnight.
		{"America/Sao_Paulo", "2017-10-14T15:00:00Z", "today", "2017-10-14T03:00:00Z", "2017-10-15T02:59:59.999Z"},
		// 23:00-24:00 repeated: the day ends at the second 23:59:59.999.
		{"America/Sao_Paulo", "2018-02-17T15:00:00Z", "today", "2018-02-17T02:00:00Z", "2018-02-18T02:59:59.999Z"},
		{"America/Santiago", "2018-08-12T15:00:00Z", "today", "2018-08-12T04:00:00Z", "2018-08-13T02:59:59.999Z"},
		{"America/Havana", "2017-03-12T15:00:00Z", "today", "2017-03-12T05:00:00Z", "2017-03-13T03:59:59.999Z"},
		{"America/Asuncion", "2017-10-01T15:00:00Z", "today", "2017-10-01T04:00:00Z", "2017-10-02T02:59:59.999Z"},
		// 00:00-01:00 repeated: the day starts at the first midnight.
		{"America/Havana", "2017-11-05T15:00:00Z", "today", "2017-11-05T04:00:00Z", "2017-11-06T04:59:59.999Z"},
		{"America/Los_Angeles", "2017-03-12T15:00:00Z", "today", "2017-03-12T08:00:00Z", "2017-03-13T06:59:59.999Z"},
		{"America/Los_Angeles", "2017-11-05T15:00:00Z", "today", "2017-11-05T07:00:00Z", "2017-11-06T07:59:59.999Z"},
	}
	for _, c := range cases {
		t.Run(c.zone+"/"+c.now+"/"+c.stmt, func(t *testing.T) {
			loc := mustLoad(t, c.zone)
			now, err := time.Parse(time.RFC3339, c.now)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Parse(c.stmt, now, WithLocation(loc))
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Min.UTC().Format(time.RFC3339Nano); got != c.min {
				t.Errorf("Min = %s (%v), want %s", got, r.Min, c.min)
			}
			if got := r.Max.UTC().Format(time.RFC3339Nano); got != c.max {
				t.Errorf("Max = %s (%v), want %s", got, r.Max, c.max)
			}
			if r.Min.Location() != loc || r.Max.Location() != loc {
				t.Errorf("bounds in %v and %v, want %v", r.Min.Location(), r.Max.Location(), loc)
			}
		})
	}
}

// TestDayBoundsAcrossZoneChanges: on every day of eleven years in zones
// with daylight saving (at midnight, at other hours, by 30 minutes), the
// first and last instants dayTime gives are on that day, and the instants
// just outside them are not.
func TestDayBoundsAcrossZoneChanges(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"America/Sao_Paulo", "America/Santiago", "America/Havana", "America/Asuncion",
		"Asia/Beirut", "America/Los_Angeles", "Europe/London", "Australia/Lord_Howe", "Asia/Tehran", "Pacific/Chatham"} {
		loc := mustLoad(t, name)
		first, last := daysFromCivil(2010, 1, 1), daysFromCivil(2020, 12, 31)
		for day := first; day <= last; day++ {
			lo, hi := dayTime(day, false, loc), dayTime(day, true, loc)
			if localDay(lo) != day || localDay(lo.Add(-time.Nanosecond)) >= day {
				t.Fatalf("%s: day %s starts at %v, before it %v", name, formatDay(day), lo, lo.Add(-time.Nanosecond))
			}
			if localDay(hi) != day || localDay(hi.Add(time.Millisecond)) <= day {
				t.Fatalf("%s: day %s ends at %v, after it %v", name, formatDay(day), hi, hi.Add(time.Millisecond))
			}
			if lo.Location() != loc || hi.Location() != loc {
				t.Fatalf("%s: bounds in %v, %v", name, lo.Location(), hi.Location())
			}
		}
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	now := time.Date(2017, 6, 13, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		stmt string
		kind error
		pos  int
		word string
	}{
		{"", ErrSyntax, 0, ""},
		{"   ", ErrSyntax, 3, ""},
		{"next week", ErrSyntax, 0, "next"},
		{"3 months ago", ErrSyntax, 0, "3"},
		{"month ago", ErrSyntax, 0, "month"},
		{"last 0 days", ErrSyntax, 5, "0"},
		{"last 01 days", ErrSyntax, 5, "01"},
		{"last 1 day", ErrSyntax, 7, "day"},
		{"last -1 days", ErrSyntax, 5, "-1"},
		{"last weeks", ErrSyntax, 5, "weeks"},
		{"last", ErrSyntax, 4, ""},
		{"last fortnight", ErrSyntax, 5, "fortnight"},
		{"last 2", ErrSyntax, 6, ""},
		{"last 2 fortnights", ErrSyntax, 7, "fortnights"},
		{"previous", ErrSyntax, 8, ""},
		{"this hour", ErrSyntax, 5, "hour"},
		{"tomorrow", ErrSyntax, 0, "tomorrow"},
		{"today tomorrow", ErrSyntax, 6, "tomorrow"},
		{"last 2 weeks ago", ErrSyntax, 13, "ago"},
		{"weeks ago", ErrSyntax, 0, "weeks"},
		{"30 Feb 2017", ErrInvalidDate, 0, "30 Feb 2017"},
		{"29-02-2017", ErrInvalidDate, 0, "29-02-2017"},
		{"31 Apr 2017", ErrInvalidDate, 0, "31 Apr 2017"},
		{"13 13 2017", ErrInvalidDate, 0, "13 13 2017"},
		{"0 June 2017", ErrInvalidDate, 0, "0 June 2017"},
		{"1 January 0000", ErrInvalidDate, 0, "1 January 0000"},
		{"13 June 17", ErrSyntax, 0, "13 June 17"},
		{"13 Juni 2017", ErrSyntax, 0, "13 Juni 2017"},
		{"13 Sept 2017", ErrSyntax, 0, "13 Sept 2017"},
		{"13 June", ErrSyntax, 0, "13 June"},
		{"13-June 2017", ErrSyntax, 0, "13-June"},
		{"113 June 2017", ErrSyntax, 0, "113 June 2017"},
		{"2017-06-13", ErrSyntax, 0, "2017-06-13"},
		{"between today and yesterday", ErrStartAfterEnd, 18, "yesterday"},
		{"from today to 1 jan 2017", ErrStartAfterEnd, 14, "1"},
		{"between today and previous year", ErrStartAfterEnd, 18, "previous"},
		{"between month ago and month ago", ErrStartAfterEnd, 22, "month"},
		{"between today", ErrSyntax, 13, ""},
		{"between today or tomorrow", ErrSyntax, 14, "or"},
		{"between today and", ErrSyntax, 17, ""},
		{"between 1 month ago and today", ErrSyntax, 10, "month"},
		{"between 2 months and today", ErrSyntax, 17, "and"},
		{"between 2 months ago and next week", ErrSyntax, 25, "next"},
		{"from 3 days ago", ErrSyntax, 5, "3"},
		{"to week ago", ErrSyntax, 3, "week"},
		{"from today until tomorrow", ErrSyntax, 11, "until"},
		{"from", ErrSyntax, 4, ""},
		{"to", ErrSyntax, 2, ""},
		// "this" takes one unit and no number.
		{"this 2 weeks", ErrSyntax, 5, "2"},
		{"THIS 2 WEEKS", ErrSyntax, 5, "2"},
		{"this 1 week", ErrSyntax, 5, "1"},
		{"this 0 days", ErrSyntax, 5, "0"},
		{"this 2weeks", ErrSyntax, 5, "2weeks"},
		{"this", ErrSyntax, 4, ""},
		{"between this 2 weeks and today", ErrSyntax, 13, "2"},
		// from and to take a date, today or yesterday, never a period.
		{"from this week", ErrSyntax, 5, "this"},
		{"from last 2 weeks", ErrSyntax, 5, "last"},
		{"from previous month", ErrSyntax, 5, "previous"},
		{"to last month", ErrSyntax, 3, "last"},
		{"To This Year", ErrSyntax, 3, "This"},
		{"from today to last month", ErrSyntax, 14, "last"},
		{"from 1 jan 2017 to this week", ErrSyntax, 19, "this"},
		{"from\u00a0this week", ErrSyntax, 6, "this"},
		{"from next week", ErrSyntax, 5, "next"},
		{"from tomorrow", ErrSyntax, 5, "tomorrow"},
		{"last 1000000 days", ErrOutOfRange, 5, "1000000"},
		{"previous 9000 years", ErrOutOfRange, 9, "9000"},
		{"between 999999 quarters ago and today", ErrOutOfRange, 8, "999999"},
		{"today\x00", ErrSyntax, 0, "today\x00"},
		{"tödäy", ErrSyntax, 0, "tödäy"},
		{strings.Repeat("a", 300), ErrSyntax, 0, strings.Repeat("a", 32)},
	}
	for _, c := range cases {
		t.Run(c.stmt, func(t *testing.T) {
			r, err := Parse(c.stmt, now)
			if err == nil {
				t.Fatalf("Parse(%q) = %v, want an error", c.stmt, r)
			}
			if r.Min != nil || r.Max != nil {
				t.Errorf("Range on error = %v, want the zero Range", r)
			}
			if !errors.Is(err, c.kind) {
				t.Errorf("error %q is not %v", err, c.kind)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *Error", err)
			}
			if pe.Pos != c.pos || pe.Word != c.word {
				t.Errorf("at %d %q, want at %d %q (%v)", pe.Pos, pe.Word, c.pos, c.word, err)
			}
			if !strings.HasPrefix(err.Error(), "daterange: ") || !strings.Contains(err.Error(), fmt.Sprint(c.pos)) {
				t.Errorf("message %q does not say where", err)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	_, err := Parse("last 0 days", time.Date(2017, 6, 13, 0, 0, 0, 0, time.UTC))
	want := `daterange: syntax error at position 5 ("0"): the number of units must be at least 1`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	_, err = Parse("last", time.Date(2017, 6, 13, 0, 0, 0, 0, time.UTC))
	if err == nil || !strings.Contains(err.Error(), "at end of statement (position 4)") {
		t.Fatalf("got %v", err)
	}
	// The two forms the service refuses say what to write instead.
	for stmt, want := range map[string]string{
		"this 2 weeks": `daterange: syntax error at position 5 ("2"): "this" takes one unit and no number ("this week"); for N units use "last N units"`,
		"to last month": `daterange: syntax error at position 3 ("last"): from and to take a date, today or yesterday, ` +
			`not a period; for a period use between ("between this week and today")`,
		"this":           `daterange: syntax error at end of statement (position 4): expected a unit (day, week, month, quarter, year) after this`,
		"this fortnight": `daterange: syntax error at position 5 ("fortnight"): expected a unit (day, week, month, quarter, year)`,
		"last fortnight": `daterange: syntax error at position 5 ("fortnight"): expected a unit (day, week, month, quarter, year) or a number`,
		"from tomorrow":  `daterange: syntax error at position 5 ("tomorrow"): unknown word; expected a date (DD MMMM YYYY, DD-MM-YYYY, ...), today or yesterday`,
	} {
		if _, err := Parse(stmt, time.Date(2017, 6, 13, 0, 0, 0, 0, time.UTC)); err == nil || err.Error() != want {
			t.Errorf("Parse(%q): got %v, want %s", stmt, err, want)
		}
	}
}

// ref is a slow reference of the unit arithmetic built on time.Date's own
// normalisation, independent of civil.go.
func refStart(today time.Time, u string, k int) time.Time {
	y, m, d := today.Date()
	switch u {
	case "day":
		return time.Date(y, m, d-k, 0, 0, 0, 0, time.UTC)
	case "week":
		back := (int(today.Weekday()) + 6) % 7
		return time.Date(y, m, d-back-7*k, 0, 0, 0, 0, time.UTC)
	case "month":
		return time.Date(y, m-time.Month(k), 1, 0, 0, 0, 0, time.UTC)
	case "quarter":
		q := (int(m)-1)/3*3 + 1
		return time.Date(y, time.Month(q-3*k), 1, 0, 0, 0, 0, time.UTC)
	case "year":
		return time.Date(y-k, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	panic(u)
}

// TestParseMatchesReference evaluates every form on every day of seven
// years against the reference arithmetic.
func TestParseMatchesReference(t *testing.T) {
	t.Parallel()
	const ms = time.Millisecond
	units := []string{"day", "week", "month", "quarter", "year"}
	for today := time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC); today.Year() < 2022; today = today.AddDate(0, 0, 1) {
		now := today.Add(13 * time.Hour)
		for _, u := range units {
			for _, n := range []int{1, 2, 5} {
				var last, prev, ago string
				if n == 1 {
					last, prev, ago = "last "+u, "previous "+u, u
				} else {
					last = fmt.Sprintf("last %d %ss", n, u)
					prev = fmt.Sprintf("previous %d %ss", n, u)
					ago = fmt.Sprintf("%d %ss", n, u)
				}
				want := map[string][2]time.Time{
					last:                                     {refStart(today, u, n-1), refStart(today, u, -1).Add(-ms)},
					prev:                                     {refStart(today, u, n), refStart(today, u, 0).Add(-ms)},
					"between " + ago + " ago and today":      {refStart(today, u, n), today.AddDate(0, 0, 1).Add(-ms)},
					"between 1 jan 2000 and " + ago + " ago": {time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), refStart(today, u, n).Add(-ms)},
				}
				for stmt, w := range want {
					r, err := Parse(stmt, now)
					if err != nil {
						t.Fatalf("%s: Parse(%q): %v", today.Format("2006-01-02"), stmt, err)
					}
					if !r.Min.Equal(w[0]) || !r.Max.Equal(w[1]) {
						t.Fatalf("%s: Parse(%q) = %v, want %s .. %s", today.Format("2006-01-02 Mon"), stmt, r,
							w[0].Format(WireLayout), w[1].Format(WireLayout))
					}
				}
			}
		}
	}
}

func TestCivilMatchesTimePackage(t *testing.T) {
	t.Parallel()
	for y := 1; y <= 9999; y += 7 {
		for _, md := range [][2]int{{1, 1}, {2, 28}, {2, 29}, {3, 1}, {12, 31}} {
			tm := time.Date(y, time.Month(md[0]), md[1], 0, 0, 0, 0, time.UTC)
			want := floorDiv(tm.Unix(), 86400)
			if got := daysFromCivil(tm.Year(), int(tm.Month()), tm.Day()); got != want {
				t.Fatalf("daysFromCivil(%v) = %d, want %d", tm, got, want)
			}
			gy, gm, gd := civilFromDays(want)
			if gy != tm.Year() || gm != int(tm.Month()) || gd != tm.Day() {
				t.Fatalf("civilFromDays(%d) = %d-%d-%d, want %v", want, gy, gm, gd, tm)
			}
			if got, want := isoWeekday(want), (int64(tm.Weekday())+6)%7; got != want {
				t.Fatalf("isoWeekday(%v) = %d, want %d", tm, got, want)
			}
			if got := daysIn(y, int(tm.Month())); got != time.Date(y, tm.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day() {
				t.Fatalf("daysIn(%d, %d) = %d", y, tm.Month(), got)
			}
		}
	}
}

func TestParseYearBounds(t *testing.T) {
	t.Parallel()
	r, err := Parse("previous 2016 years", time.Date(2017, 6, 13, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	wantBounds(t, r, "0001-01-01", "2016-12-31", time.UTC)
	if _, err := Parse("previous 2017 years", time.Date(2017, 6, 13, 0, 0, 0, 0, time.UTC)); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("got %v, want ErrOutOfRange", err)
	}
	if _, err := Parse("this year", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("got %v, want ErrOutOfRange", err)
	}
}

// TestParseAgoBoundsChecksTheSideInUse: "N units ago" gives a lower bound
// (the start of the unit) and an upper bound (the day before it); only the
// one the statement uses must lie in the years 0001-9999.
func TestParseAgoBoundsChecksTheSideInUse(t *testing.T) {
	t.Parallel()
	now := time.Date(2017, 6, 13, 10, 0, 0, 0, time.UTC)
	r, err := Parse("between 2016 years ago and today", now)
	if err != nil {
		t.Fatal(err)
	}
	wantBounds(t, r, "0001-01-01", "2017-06-13", time.UTC)
	r, err = Parse("between 24197 months ago and today", now) // back to January 0001
	if err != nil {
		t.Fatal(err)
	}
	wantBounds(t, r, "0001-01-01", "2017-06-13", time.UTC)
	for _, stmt := range []string{"between 2017 years ago and today", "between 1 jan 0001 and 2016 years ago"} {
		if _, err := Parse(stmt, now); !errors.Is(err, ErrOutOfRange) {
			t.Errorf("Parse(%q): %v, want ErrOutOfRange", stmt, err)
		}
	}
	// The upper side alone: the unit a day ago starts on 10000-01-01, out
	// of range, but the day before it, the bound in use, is not.
	late := time.Date(10000, 1, 2, 10, 0, 0, 0, time.UTC)
	r, err = Parse("between 1 jan 9999 and day ago", late)
	if err != nil {
		t.Fatal(err)
	}
	wantBounds(t, r, "9999-01-01", "9999-12-31", time.UTC)
	if _, err := Parse("between day ago and today", late); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("lower side out of range: %v, want ErrOutOfRange", err)
	}
}

// TestParseUnicodeSpaces: pasted no-break and typographic spaces separate
// words; positions stay byte offsets.
func TestParseUnicodeSpaces(t *testing.T) {
	t.Parallel()
	now := time.Date(2017, 6, 13, 10, 0, 0, 0, time.UTC)
	for _, stmt := range []string{"today\u00a0", "\u00a0today", "today\u2000\u200a\u202f\u3000",
		"last\u00a02\u2009weeks", "between\u3000week ago\u202fand today", "13\u00a0June\u00a02017"} {
		r, err := Parse(stmt, now)
		if err != nil {
			t.Errorf("Parse(%q): %v", stmt, err)
			continue
		}
		if r.Min == nil || r.Max == nil {
			t.Errorf("Parse(%q) = %v", stmt, r)
		}
	}
	cases := []struct {
		stmt string
		pos  int
		word string
	}{
		{"last\u00a00 days", 6, "0"},           // U+00A0 is two bytes
		{"\u3000last 2 day", 10, "day"},        // U+3000 is three bytes
		{"today\u00a0tomorrow", 7, "tomorrow"}, // two words
		{"today\u2028", 0, "today\u2028"},      // U+2028 is not one of the spaces
		{"today\xa0", 0, "today\xa0"},          // a lone second byte of U+00A0
		{"today\xc2", 0, "today\xc2"},          // a truncated one
		{"today\xe2\x80", 0, "today\xe2\x80"},  // a truncated U+2000
	}
	for _, c := range cases {
		_, err := Parse(c.stmt, now)
		var pe *Error
		if !errors.As(err, &pe) || pe.Pos != c.pos || pe.Word != c.word {
			t.Errorf("Parse(%q): %v, want an error at %d %q", c.stmt, err, c.pos, c.word)
		}
	}
}

// TestParseSkippedDay: Pacific/Apia skipped 30 December 2011; a range of
// only that day has no instant and is an error, never Min after Max.
func TestParseSkippedDay(t *testing.T) {
	t.Parallel()
	apia := mustLoad(t, "Pacific/Apia")
	now := time.Date(2012, 1, 5, 12, 0, 0, 0, apia)
	for _, stmt := range []string{"30 dec 2011", " between 30 dec 2011 and 30-12-2011"} {
		_, err := Parse(stmt, now)
		var pe *Error
		if !errors.As(err, &pe) || !errors.Is(err, ErrInvalidDate) || pe.Pos != strings.Index(stmt, strings.TrimSpace(stmt)) ||
			!strings.Contains(pe.Msg, "Pacific/Apia") {
			t.Errorf("Parse(%q): %v, want ErrInvalidDate naming the zone", stmt, err)
		}
	}
	// Ranges that reach an existing day are fine.
	r, err := Parse("between 29 dec 2011 and 30 dec 2011", now)
	if err != nil {
		t.Fatal(err)
	}
	wantBounds(t, r, "2011-12-29", "2011-12-29", apia)
	r, err = Parse("from 30 dec 2011", now)
	if err != nil {
		t.Fatal(err)
	}
	wantBounds(t, r, "2011-12-31", "", apia)
}
