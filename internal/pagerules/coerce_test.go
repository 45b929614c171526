package pagerules

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestParseDateTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want string // RFC 3339 in UTC; "" for not a date-time
		form Coercion
	}{
		{"2023-11-14T22:13:00Z", "2023-11-14T22:13:00Z", ""},
		{"2023-11-14T22:13:00.5+01:00", "2023-11-14T21:13:00.5Z", ""},
		{"2023-11-14T22:13:00", "2023-11-14T22:13:00Z", ""},
		{"2023-11-14 22:13:00", "2023-11-14T22:13:00Z", ""},
		{"2023-11-14T22:13:00.000+0000", "2023-11-14T22:13:00Z", ""},
		{"2023-11-14", "2023-11-14T00:00:00Z", ""},
		{" 2023-11-14 ", "2023-11-14T00:00:00Z", ""},
		{"11/14/2023, 10:13 PM", "2023-11-14T22:13:00Z", USDate},
		{"11/14/2023, 10:13:05 am", "2023-11-14T10:13:05Z", USDate},
		{"1/2/2024 9:05 AM", "2024-01-02T09:05:00Z", USDate},
		{"11/14/2023", "2023-11-14T00:00:00Z", USDate},
		{"11/14/2023 22:13", "2023-11-14T22:13:00Z", USDate},
		{"Tue, 14 Nov 2023 22:13:00 GMT", "2023-11-14T22:13:00Z", RFC1123Date},
		{"Tue, 14 Nov 2023 23:13:00 +0100", "2023-11-14T22:13:00Z", RFC1123Date},
		{"14 Nov 2023 22:13:00 +0000", "2023-11-14T22:13:00Z", RFC1123Date},
		{"Tue Nov 14 2023 23:13:00 GMT+0100 (Central European Standard Time)", "2023-11-14T22:13:00Z", JSDate},
		{"2023/11/14", "2023-11-14T00:00:00Z", SlashedISODate},
		{"2023/11/14 22:13:05", "2023-11-14T22:13:05Z", SlashedISODate},
		{"13/14/2023", "", ""},
		{"2023-02-30", "", ""},
		{"14 June", "", ""},
		{"yesterday", "", ""},
		{"", "", ""},
		{"0000-01-01T00:00:00Z", "", ""},
	} {
		got, form, ok := ParseDateTime(tc.in)
		if !ok {
			if tc.want != "" {
				t.Errorf("%q: not read, want %s", tc.in, tc.want)
			}
			continue
		}
		if tc.want == "" {
			t.Errorf("%q: read as %s (%s), want refused", tc.in, got, form)
			continue
		}
		if s := got.Format(time.RFC3339Nano); s != tc.want || form != tc.form {
			t.Errorf("%q: %s (%q), want %s (%q)", tc.in, s, form, tc.want, tc.form)
		}
	}
}

func TestDateTimeOfNumbers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   any
		want string
	}{
		{json.Number("1700000000000"), "2023-11-14T22:13:20Z"},
		{json.Number("1.7e12"), "2023-11-14T22:13:20Z"},
		{float64(1700000000000), "2023-11-14T22:13:20Z"},
		{json.Number("1e30"), ""},
		{true, ""},
	} {
		got, form, ok := DateTimeOf(tc.in)
		switch {
		case !ok && tc.want != "":
			t.Errorf("%v: not read", tc.in)
		case ok && (got.Format(time.RFC3339) != tc.want || form != EpochMillis):
			t.Errorf("%v: %s %q, want %s", tc.in, got.Format(time.RFC3339), form, tc.want)
		}
	}
}

func TestTextOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   any
		want string
		form Coercion
		ok   bool
	}{
		{"x", "x", "", true},
		{json.Number("3.50"), "3.50", ScalarText, true},
		{false, "false", ScalarText, true},
		{[]any{"# Title", "", "text"}, "# Title\n\ntext", JoinedLines, true},
		{[]any{}, "", JoinedLines, true},
		{[]any{"a", json.Number("1")}, "", "", false},
		{map[string]any{}, "", "", false},
	} {
		s, form, ok := TextOf(tc.in)
		if s != tc.want || form != tc.form || ok != tc.ok {
			t.Errorf("%#v: %q %q %v, want %q %q %v", tc.in, s, form, ok, tc.want, tc.form, tc.ok)
		}
	}
}

func TestPaging(t *testing.T) {
	t.Parallel()
	cur := func(s string) json.RawMessage { return json.RawMessage(s) }
	t.Run("a repeated cursor, in any key order", func(t *testing.T) {
		p := NewPaging("task")
		if vs := p.Page([]string{"1", "2"}, true, cur(`{"a":1,"b":2}`)); len(vs) != 0 {
			t.Fatal(vs)
		}
		vs := p.Page([]string{"3", "4"}, true, cur(`{"b":2, "a":1}`))
		if len(vs) != 1 || vs[0].Rule != CursorRepeats || vs[0].Page != 2 {
			t.Fatalf("%v", vs)
		}
	})
	t.Run("a page repeating an earlier page's ids", func(t *testing.T) {
		p := NewPaging("task")
		p.Page([]string{"1", "2", "3"}, true, cur(`{"p":2}`))
		p.Page([]string{"4", "5"}, true, cur(`{"p":3}`))
		vs := p.Page([]string{"3", "1", "2"}, true, cur(`{"p":4}`))
		if len(vs) != 1 || vs[0].Rule != PageRepeats || vs[0].Rule.Level() != Required {
			t.Fatalf("%v", vs)
		}
		if want := `type "task", page 3: page repeats: the page's 3 ids are exactly those of page 1`; vs[0].Error()[:len(want)] != want {
			t.Errorf("%s", vs[0].Error())
		}
	})
	t.Run("one item, or part of a page, again is no repeat", func(t *testing.T) {
		p := NewPaging("task")
		p.Page([]string{"1"}, true, cur(`{"p":2}`))
		p.Page([]string{"1", "2", "3"}, true, cur(`{"p":3}`))
		for i, ids := range [][]string{{"1"}, {"1", "2"}, {"2", "3", "4"}, {}, {}} {
			if vs := p.Page(ids, true, cur(`{"p":`+string(rune('4'+i))+`}`)); len(vs) != 0 {
				t.Fatalf("page %v: %v", ids, vs)
			}
		}
	})
	t.Run("resumed at a cursor", func(t *testing.T) {
		p := NewPaging("task")
		p.Resume(5, cur(`{"p":5}`))
		vs := p.Page([]string{"9", "10"}, true, cur(`{"p":5}`))
		if len(vs) != 1 || vs[0].Rule != CursorRepeats || vs[0].Page != 5 {
			t.Fatalf("%v", vs)
		}
	})
}

// Run reports both paging rules through Paging.
func TestRunPageRepeats(t *testing.T) {
	t.Parallel()
	r := NewRun("task", schema())
	items := []any{map[string]any{"id": "1"}, map[string]any{"id": "2"}}
	r.Page(items, "delta", true, json.RawMessage(`{"p":2}`))
	_, vs := r.Page(items, "delta", true, json.RawMessage(`{"p":3}`))
	if len(rulesOf(vs)) == 0 || rulesOf(vs)[len(vs)-1] != string(PageRepeats) {
		t.Fatalf("%v", vs)
	}
}

func FuzzParseDateTime(f *testing.F) {
	for _, s := range []string{"2023-11-14T22:13:00Z", "11/14/2023, 10:13 PM", "Tue, 14 Nov 2023 22:13:00 GMT",
		"Tue Nov 14 2023 23:13:00 GMT+0100 (CET)", "2023/11/14", "(", "1/1/1 1:1 AM"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, form, ok := ParseDateTime(s)
		if !ok {
			return
		}
		if got.Year() < 1 || got.Year() > 9999 || got.Location() != time.UTC {
			t.Fatalf("%q: %v", s, got)
		}
		// What is read in the stated form is RFC 3339 once written back.
		if form == "" {
			if again, f2, ok := ParseDateTime(got.Format(time.RFC3339Nano)); !ok || f2 != "" || !again.Equal(got) {
				t.Fatalf("%q: %v does not read back", s, got)
			}
		}
	})
}

// FuzzParseDateTimeLayouts: ParseDateTime, which tries only the day layout
// for a string of a day's length, reads every string as trying every layout
// in order does.
func FuzzParseDateTimeLayouts(f *testing.F) {
	for _, s := range []string{"2024-01-31", "2024-1-31", " 2024-01-31 ", "2024-01-31T10:00:00Z", "2024-01-31T1:00", "0000-01-01", "9999-12-31T23:59:59.999+01:00", "1/2/2024", "2024/1/31"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gotForm, ok := ParseDateTime(s)
		in := strings.TrimSpace(s)
		var want time.Time
		var form Coercion
		found, matched := false, false
		take := func(tm time.Time, c Coercion) {
			matched = true
			if tm.Year() >= 1 && tm.Year() <= 9999 {
				want, form, found = tm.UTC(), c, true
			}
		}
		for _, layout := range isoLayouts {
			if tm, err := time.Parse(layout, in); err == nil {
				take(tm, "")
				break
			}
		}
		if !matched && in != "" && len(in) <= 80 {
			if i := strings.IndexByte(in, '('); i > 0 && strings.HasSuffix(in, ")") {
				in = strings.TrimSpace(in[:i])
			}
			for _, l := range looseLayouts {
				x := in
				if l.form == USDate {
					x = strings.ToUpper(in)
				}
				if tm, err := time.Parse(l.layout, x); err == nil {
					take(tm, l.form)
					break
				}
			}
		}
		if found != ok || !got.Equal(want) || (ok && form != gotForm) {
			t.Fatalf("%q: got %v %q %v; trying every layout gives %v %q (found %v)", s, got, gotForm, ok, want, form, found)
		}
	})
}
