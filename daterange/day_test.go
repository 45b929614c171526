package daterange

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseDay(t *testing.T) {
	t.Parallel()
	now := time.Date(2017, 6, 13, 15, 4, 5, 0, time.UTC) // a Tuesday
	cases := []struct{ in, want string }{
		{"2017-06-01", "2017-06-01"},
		{" 2016-02-29 ", "2016-02-29"},
		{"13 June 2017", "2017-06-13"},
		{"13-06-2017", "2017-06-13"},
		{"1-JAN-2018", "2018-01-01"},
		{"today", "2017-06-13"},
		{"Yesterday", "2017-06-12"},
		{"tomorrow", "2017-06-14"},
		{"now", "2017-06-13"},
		{"3 days ago", "2017-06-10"},
		{"three days ago", "2017-06-10"},
		{"1 day ago", "2017-06-12"},
		{"2 weeks ago", "2017-05-30"},
		{"2 months ago", "2017-04-13"},
		{"1 year ago", "2016-06-13"},
		{"in 2 weeks", "2017-06-27"},
		{"in a week", "2017-06-20"},
		{"in 10 days", "2017-06-23"},
		{"5 days from now", "2017-06-18"},
		{"ten days from now", "2017-06-23"},
		{"in 1 month", "2017-07-13"},
		{"1 year ago", "2016-06-13"},
		{"1 week ago", "2017-06-06"},
		{"in a day", "2017-06-14"},
		{"next tuesday", "2017-06-20"},
		// Pasted no-break and typographic spaces separate words too.
		{"today\u00a0", "2017-06-13"},
		{"\u00a02017-06-01\u202f", "2017-06-01"},
		{"3\u00a0days\u2009ago", "2017-06-10"},
		{"13\u3000June\u2000 2017", "2017-06-13"},
		{"in\u200a2\u00a0weeks", "2017-06-27"},
		{"friday", "2017-06-09"},
		{"next friday", "2017-06-16"},
		{"last friday", "2017-06-09"},
		{"tuesday", "2017-06-06"}, // the last Tuesday before today
		{"Monday", "2017-06-12"},
		{"sunday", "2017-06-11"},
		{"  IN   2   WEEKS ", "2017-06-27"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseDay(c.in, now)
			if err != nil {
				t.Fatalf("ParseDay(%q): %v", c.in, err)
			}
			if s := got.Format(time.RFC3339Nano); s != c.want+"T00:00:00Z" {
				t.Errorf("ParseDay(%q) = %s, want %s midnight UTC", c.in, s, c.want)
			}
		})
	}
}

// TestParseDayZone: the day is now's day in now's zone, midnight there.
func TestParseDayZone(t *testing.T) {
	t.Parallel()
	ist := time.FixedZone("+05:30", 5*3600+1800)
	now := time.Date(2017, 6, 13, 23, 30, 0, 0, time.UTC).In(ist) // the 14th there
	checkDays(t, ist, map[string]time.Time{
		"today":      time.Date(2017, 6, 14, 0, 0, 0, 0, ist),
		"tomorrow":   time.Date(2017, 6, 15, 0, 0, 0, 0, ist),
		"2 days ago": time.Date(2017, 6, 12, 0, 0, 0, 0, ist),
		"2017-01-05": time.Date(2017, 1, 5, 0, 0, 0, 0, ist),
	}, func(in string) (time.Time, error) { return ParseDay(in, now) })
}

// checkDays parses each statement with parse and wants its day, in loc.
func checkDays(t *testing.T, loc *time.Location, want map[string]time.Time, parse func(string) (time.Time, error)) {
	t.Helper()
	for in, w := range want {
		got, err := parse(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if !got.Equal(w) || got.Location() != loc {
			t.Errorf("ParseDay(%q) = %v, want %v", in, got, w)
		}
	}
}

// TestParseDayDST: a day is a calendar day even across a daylight-saving
// change, where 24 hours are not a day.
func TestParseDayDST(t *testing.T) {
	t.Parallel()
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2017, 3, 13, 0, 30, 0, 0, la) // the night after clocks went forward
	for in, want := range map[string]time.Time{
		"1 day ago":        time.Date(2017, 3, 12, 0, 0, 0, 0, la),
		"yesterday":        time.Date(2017, 3, 12, 0, 0, 0, 0, la),
		"1 week ago":       time.Date(2017, 3, 6, 0, 0, 0, 0, la),
		"2 days from now":  time.Date(2017, 3, 15, 0, 0, 0, 0, la),
		"last sunday":      time.Date(2017, 3, 12, 0, 0, 0, 0, la),
		"2 months ago":     time.Date(2017, 1, 13, 0, 0, 0, 0, la),
		"in 1 year":        time.Date(2018, 3, 13, 0, 0, 0, 0, la),
		"13 November 2017": time.Date(2017, 11, 13, 0, 0, 0, 0, la),
	} {
		got, err := ParseDay(in, now)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if !got.Equal(want) {
			t.Errorf("ParseDay(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestParseDayMonthEnds: moving by months or years from a day the target
// month lacks ends on that month's last day.
func TestParseDayMonthEnds(t *testing.T) {
	t.Parallel()
	cases := []struct{ now, in, want string }{
		{"2017-03-31", "1 month ago", "2017-02-28"},
		{"2017-03-31", "1 months ago", "2017-02-28"},
		{"2017-03-31", "in a month", "2017-04-30"},
		{"2017-03-31", "in 1 month", "2017-04-30"},
		{"2017-03-31", "2 months ago", "2017-01-31"},
		{"2016-03-31", "1 month ago", "2016-02-29"},
		{"2016-02-29", "1 year ago", "2015-02-28"},
		{"2016-02-29", "in 4 years", "2020-02-29"},
		{"2016-02-29", "in a year", "2017-02-28"},
		{"2017-03-31", "1 week ago", "2017-03-24"},
	}
	for _, c := range cases {
		now, err := time.Parse("2006-01-02", c.now)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseDay(c.in, now.Add(9*time.Hour))
		if err != nil {
			t.Fatalf("%s %q: %v", c.now, c.in, err)
		}
		if s := got.Format("2006-01-02"); s != c.want {
			t.Errorf("on %s ParseDay(%q) = %s, want %s", c.now, c.in, s, c.want)
		}
	}
}

func TestParseDayRejects(t *testing.T) {
	t.Parallel()
	now := time.Date(2017, 6, 13, 15, 4, 5, 0, time.UTC)
	cases := []struct {
		in   string
		kind error
	}{
		{"", ErrSyntax},
		{"   ", ErrSyntax},
		{"2017-02-30", ErrInvalidDate},
		{"2017-13-01", ErrInvalidDate},
		{"0000-01-01", ErrInvalidDate},
		{"30 Feb 2017", ErrInvalidDate},
		{"2017-6-1", ErrSyntax},
		{"next quarter", ErrSyntax},
		// Periods of the grammar are not days (M6): refused rather than
		// read as one unit back or forward.
		{"last day", ErrSyntax},
		{"last week", ErrSyntax},
		{"last month", ErrSyntax},
		{"last year", ErrSyntax},
		{"next day", ErrSyntax},
		{"next week", ErrSyntax},
		{"next month", ErrSyntax},
		{"this week", ErrSyntax},
		{"previous month", ErrSyntax},
		{"today\u0085", ErrSyntax}, // NEL is not one of the spaces

		{"3 dayz ago", ErrSyntax},
		{"in 3 days please", ErrSyntax},
		{"please in 3 days", ErrSyntax},
		{"last 2 weeks", ErrSyntax},
		{"february", ErrSyntax},
		{"yesterday at 10am", ErrSyntax},
		{"next friday at 5pm", ErrSyntax},
		{"day ago", ErrSyntax},
		{"03 days ago", ErrSyntax},
		{"3 hours ago", ErrSyntax},
		{"eleven days ago", ErrSyntax},
		{"in a", ErrSyntax},
		{"a b c d e f", ErrSyntax},
		{"9999 years ago", ErrOutOfRange},
		{strings.Repeat("x", 65), ErrSyntax},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseDay(c.in, now)
			if err == nil {
				t.Fatalf("ParseDay(%q) = %v, want an error", c.in, got)
			}
			if !errors.Is(err, c.kind) {
				t.Errorf("error %q is not %v", err, c.kind)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Errorf("error %T is not *Error", err)
			}
		})
	}
}

// TestParseDayMeansWhatParseMeans: a phrase ParseDay accepts that the
// grammar also reads gives the day Parse starts on; the grammar's periods
// are refused, with a message that says so.
func TestParseDayMeansWhatParseMeans(t *testing.T) {
	t.Parallel()
	now := time.Date(2017, 6, 13, 15, 4, 5, 0, time.UTC)
	for _, s := range []string{"today", "yesterday", "13 June 2017", "13-06-2017", "1-jan-2018"} {
		d, err := ParseDay(s, now)
		if err != nil {
			t.Fatalf("ParseDay(%q): %v", s, err)
		}
		r, err := Parse(s, now)
		if err != nil {
			t.Fatalf("Parse(%q): %v", s, err)
		}
		if !d.Equal(*r.Min) {
			t.Errorf("ParseDay(%q) = %v, Parse's Min %v", s, d, r.Min)
		}
	}
	for _, s := range []string{"last day", "last week", "last month", "last year", "this month", "next week", "previous year"} {
		_, err := ParseDay(s, now)
		var pe *Error
		if !errors.As(err, &pe) || pe.Pos != 0 || !strings.Contains(pe.Msg, "is a period, not a day") {
			t.Errorf("ParseDay(%q): %v, want a period-not-a-day error at 0", s, err)
		}
	}
}

// TestParseDayErrorsSayWhere: an unknown unit is named with its position.
func TestParseDayErrorsSayWhere(t *testing.T) {
	t.Parallel()
	now := time.Date(2017, 6, 13, 15, 4, 5, 0, time.UTC)
	cases := []struct {
		in, word string
		pos      int
		msg      string
	}{
		{"3 hours ago", "hours", 2, "unknown unit hours"},
		{" 3  fortnights ago", "fortnights", 4, "unknown unit fortnights"},
		{"3 quarters ago", "quarters", 2, "unknown unit quarters"},
		{"in 2 hours", "hours", 5, "unknown unit hours"},
		{"in an hour", "hour", 6, "unknown unit hour"},
		{"5 minutes from now", "minutes", 2, "unknown unit minutes"},
		{"13 Juni 2017", "13 Juni 2017", 0, "expected a date"},
		{"sometime soon", "sometime", 0, "not a day"},
	}
	for _, c := range cases {
		_, err := ParseDay(c.in, now)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Fatalf("ParseDay(%q): %v, want an *Error", c.in, err)
		}
		if pe.Word != c.word || pe.Pos != c.pos || !strings.Contains(pe.Msg, c.msg) || !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseDay(%q): %v; want %q at %d saying %q", c.in, err, c.word, c.pos, c.msg)
		}
	}
}

// TestParseDayOptions: WithLocation moves now into the zone, as for Parse.
func TestParseDayOptions(t *testing.T) {
	t.Parallel()
	ist := time.FixedZone("+05:30", 5*3600+1800)
	now := time.Date(2017, 6, 13, 23, 30, 0, 0, time.UTC)
	checkDays(t, ist, map[string]time.Time{
		"today":      time.Date(2017, 6, 14, 0, 0, 0, 0, ist),
		"2 days ago": time.Date(2017, 6, 12, 0, 0, 0, 0, ist),
		"2017-01-05": time.Date(2017, 1, 5, 0, 0, 0, 0, ist),
	}, func(in string) (time.Time, error) { return ParseDay(in, now, WithLocation(ist)) })
}

// TestParseDaySkippedMidnight: the day starts at its first instant where a
// daylight-saving change skips midnight, not on the day before.
func TestParseDaySkippedMidnight(t *testing.T) {
	t.Parallel()
	cases := []struct{ zone, now, in, want string }{
		{"America/Sao_Paulo", "2017-10-15T15:00:00Z", "today", "2017-10-15T01:00:00-02:00"},
		{"America/Sao_Paulo", "2017-10-16T15:00:00Z", "yesterday", "2017-10-15T01:00:00-02:00"},
		{"America/Sao_Paulo", "2017-10-20T15:00:00Z", "5 days ago", "2017-10-15T01:00:00-02:00"},
		{"America/Sao_Paulo", "2017-10-10T15:00:00Z", "2017-10-15", "2017-10-15T01:00:00-02:00"},
		{"America/Sao_Paulo", "2017-10-10T15:00:00Z", "15 Oct 2017", "2017-10-15T01:00:00-02:00"},
		{"America/Santiago", "2018-08-12T15:00:00Z", "today", "2018-08-12T01:00:00-03:00"},
		{"America/Havana", "2017-03-12T15:00:00Z", "today", "2017-03-12T01:00:00-04:00"},
		{"America/Asuncion", "2017-10-01T15:00:00Z", "today", "2017-10-01T01:00:00-03:00"},
	}
	for _, c := range cases {
		loc, err := time.LoadLocation(c.zone)
		if err != nil {
			t.Fatal(err)
		}
		now, err := time.Parse(time.RFC3339, c.now)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseDay(c.in, now.In(loc))
		if err != nil {
			t.Fatalf("%s %q: %v", c.zone, c.in, err)
		}
		if s := got.Format(time.RFC3339); s != c.want || got.Location() != loc {
			t.Errorf("%s on %s: ParseDay(%q) = %s (%v), want %s", c.zone, c.now, c.in, s, got.Location(), c.want)
		}
	}
}

// TestParseDaySkippedDay: a day a zone change skips is not a day there.
func TestParseDaySkippedDay(t *testing.T) {
	t.Parallel()
	apia, err := time.LoadLocation("Pacific/Apia")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2012, 1, 5, 12, 0, 0, 0, apia)
	for _, in := range []string{"2011-12-30", "30 Dec 2011", "6 days ago"} {
		got, err := ParseDay(in, now)
		if !errors.Is(err, ErrInvalidDate) || !strings.Contains(err.Error(), "30 December 2011 does not exist in Pacific/Apia") {
			t.Errorf("ParseDay(%q) = %v, %v; want ErrInvalidDate", in, got, err)
		}
	}
	got, err := ParseDay("2011-12-31", now)
	if err != nil || got.Format(time.RFC3339) != "2011-12-31T00:00:00+14:00" {
		t.Errorf("ParseDay(2011-12-31) = %v, %v", got, err)
	}
}
