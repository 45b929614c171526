package daterange

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestParseDay(t *testing.T) {
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
		{"next month", "2017-07-13"},
		{"last year", "2016-06-13"},
		{"last week", "2017-06-06"},
		{"next day", "2017-06-14"},
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

func TestParseDayZone(t *testing.T) {
	ist := time.FixedZone("+05:30", 5*3600+1800)
	now := time.Date(2017, 6, 13, 23, 30, 0, 0, time.UTC).In(ist) // the 14th there
	for in, want := range map[string]time.Time{
		"today":      time.Date(2017, 6, 14, 0, 0, 0, 0, ist),
		"tomorrow":   time.Date(2017, 6, 15, 0, 0, 0, 0, ist),
		"2 days ago": time.Date(2017, 6, 12, 0, 0, 0, 0, ist),
		"2017-01-05": time.Date(2017, 1, 5, 0, 0, 0, 0, ist),
	} {
		got, err := ParseDay(in, now)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if !got.Equal(want) || got.Location() != ist {
			t.Errorf("ParseDay(%q) = %v, want %v", in, got, want)
		}
	}
}

// TestParseDayDST: a day is a calendar day even across a daylight-saving
// change, where 24 hours are not a day.
func TestParseDayDST(t *testing.T) {
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
	cases := []struct{ now, in, want string }{
		{"2017-03-31", "1 month ago", "2017-02-28"},
		{"2017-03-31", "last month", "2017-02-28"},
		{"2017-03-31", "in a month", "2017-04-30"},
		{"2017-03-31", "next month", "2017-04-30"},
		{"2017-03-31", "2 months ago", "2017-01-31"},
		{"2016-03-31", "1 month ago", "2016-02-29"},
		{"2016-02-29", "1 year ago", "2015-02-28"},
		{"2016-02-29", "in 4 years", "2020-02-29"},
		{"2016-02-29", "next year", "2017-02-28"},
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
