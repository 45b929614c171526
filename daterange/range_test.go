package daterange

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func tp(t time.Time) *time.Time { return &t }

func TestMarshalJSON(t *testing.T) {
	t.Parallel()
	min := time.Date(2017, 6, 13, 0, 0, 0, 0, time.UTC)
	max := time.Date(2017, 6, 13, 23, 59, 59, 999_000_000, time.UTC)
	ist := time.FixedZone("+05:30", 5*3600+1800)
	cases := []struct {
		name       string
		r          Range
		json, wire string
	}{
		{"closed", Range{Min: &min, Max: &max},
			`{"_min":"2017-06-13T00:00:00.000","_max":"2017-06-13T23:59:59.999"}`,
			`{"_min":"2017-06-13T00:00:00.000","_max":"2017-06-13T23:59:59.999"}`},
		{"from", Range{Min: &min},
			`{"_min":"2017-06-13T00:00:00.000","_max":null}`, `{"_min":"2017-06-13T00:00:00.000"}`},
		{"to", Range{Max: &max},
			`{"_min":null,"_max":"2017-06-13T23:59:59.999"}`, `{"_max":"2017-06-13T23:59:59.999"}`},
		{"open", Range{}, `{"_min":null,"_max":null}`, `{}`},
		{"wall clock of its own zone", Range{Min: tp(time.Date(2017, 6, 14, 0, 0, 0, 0, ist))},
			`{"_min":"2017-06-14T00:00:00.000","_max":null}`, `{"_min":"2017-06-14T00:00:00.000"}`},
		{"milliseconds truncated", Range{Min: tp(time.Date(2017, 6, 13, 1, 2, 3, 456_789_000, time.UTC))},
			`{"_min":"2017-06-13T01:02:03.456","_max":null}`, `{"_min":"2017-06-13T01:02:03.456"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := json.Marshal(c.r) // through encoding/json, as appkit uses it
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.json {
				t.Errorf("MarshalJSON = %s, want %s", got, c.json)
			}
			if s := c.r.String(); s != c.json {
				t.Errorf("String = %s, want %s", s, c.json)
			}
			wire, err := c.r.WireJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(wire) != c.wire {
				t.Errorf("WireJSON = %s, want %s", wire, c.wire)
			}
		})
	}
	if _, err := json.Marshal(Range{Max: tp(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))}); err == nil {
		t.Error("a five-digit year marshalled")
	}
	if _, err := json.Marshal(&Range{Min: &min}); err != nil {
		t.Errorf("*Range: %v", err)
	}
}

func TestUnmarshalJSON(t *testing.T) {
	t.Parallel()
	utc := func(s string) *time.Time {
		tt, err := time.Parse("2006-01-02T15:04:05.000", s)
		if err != nil {
			panic(err)
		}
		return &tt
	}
	cases := []struct {
		in       string
		min, max *time.Time
	}{
		{`{"_min":"2017-06-13T00:00:00.000","_max":"2017-06-13T23:59:59.999"}`,
			utc("2017-06-13T00:00:00.000"), utc("2017-06-13T23:59:59.999")},
		{` { "_max" : "2017-06-13T23:59:59.999" , "_min" : "2017-06-13T00:00:00" } `,
			utc("2017-06-13T00:00:00.000"), utc("2017-06-13T23:59:59.999")},
		{`{"_min":"2017-06-13T00:00:00"}`, utc("2017-06-13T00:00:00.000"), nil},
		{`{"_max":"2017-06-13T23:59:59.999"}`, nil, utc("2017-06-13T23:59:59.999")},
		{`{"_min":null,"_max":"2017-06-13T23:59:59.999"}`, nil, utc("2017-06-13T23:59:59.999")},
		{`{"_min":"2017-06-13T00:00:00.5"}`, utc("2017-06-13T00:00:00.500"), nil},
		{`{}`, nil, nil},
		{`{"_min":null,"_max":null}`, nil, nil},
		{`{"_min":"2017-06-13T00:00:00Z"}`, utc("2017-06-13T00:00:00.000"), nil},
		{`{"_min":"2017-06-13T00:00:00.000+02:00"}`, utc("2017-06-12T22:00:00.000"), nil},
		{`{"_min":"2017-06-13T00:00:00-07:00","_max":"2017-06-13T08:00:00.000"}`,
			utc("2017-06-13T07:00:00.000"), utc("2017-06-13T08:00:00.000")},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			var holder struct {
				Due Range `json:"due"`
			}
			if err := json.Unmarshal([]byte(`{"due":`+c.in+`}`), &holder); err != nil {
				t.Fatal(err)
			}
			r := holder.Due
			for _, side := range []struct {
				name      string
				got, want *time.Time
			}{{"Min", r.Min, c.min}, {"Max", r.Max, c.max}} {
				switch {
				case side.want == nil && side.got != nil:
					t.Errorf("%s = %v, want open", side.name, side.got)
				case side.want != nil && side.got == nil:
					t.Errorf("%s open, want %v", side.name, side.want)
				case side.want != nil && !side.got.Equal(*side.want):
					t.Errorf("%s = %v, want %v", side.name, side.got, side.want)
				}
			}
		})
	}
	// A naive time is that wall clock in UTC; an aware one keeps its offset.
	var r Range
	if err := json.Unmarshal([]byte(`{"_min":"2017-06-13T00:00:00","_max":"2017-06-13T23:00:00+05:30"}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.Min.Location() != time.UTC {
		t.Errorf("naive _min location = %v, want UTC", r.Min.Location())
	}
	if _, off := r.Max.Zone(); off != 5*3600+1800 {
		t.Errorf("aware _max offset = %d, want +05:30", off)
	}
	// null leaves the value unchanged.
	before := r
	if err := json.Unmarshal([]byte(`null`), &r); err != nil || r != before {
		t.Errorf("null: %v, %v", r, err)
	}
}

// TestUnmarshalJSONStrictKeysThroughEncodingJSON: the strict key check holds
// when encoding/json decodes a Range inside another value (encoding/json's
// own matching would take "_MIN" for "_min" and the last of duplicate keys),
// and the refusal is the Range's own, naming the key.
func TestUnmarshalJSONStrictKeysThroughEncodingJSON(t *testing.T) {
	t.Parallel()
	type holder struct {
		Due  Range `json:"due"`
		Note string
	}
	// The same shape with exact keys decodes, the field after it too.
	var ok holder
	if err := json.Unmarshal([]byte(`{"due":{"_min":"2017-06-13T00:00:00"},"Note":"n"}`), &ok); err != nil ||
		ok.Due.Min == nil || ok.Due.Min.Format(WireLayout) != "2017-06-13T00:00:00.000" || ok.Due.Max != nil || ok.Note != "n" {
		t.Fatalf("exact keys: %+v, %v", ok, err)
	}
	for _, c := range []struct{ in, msg string }{
		{`{"due":{"_MIN":"2017-06-13T00:00:00"}}`,
			`daterange: want an object {"_min": ..., "_max": ...}: unknown field "_MIN" (the keys are exactly _min and _max)`},
		{`{"due":{"_Max":"2017-06-13T00:00:00"}}`,
			`daterange: want an object {"_min": ..., "_max": ...}: unknown field "_Max" (the keys are exactly _min and _max)`},
		{`{"due":{"_max":"2017-06-13T00:00:00","_max":"2017-06-14T00:00:00"}}`,
			`daterange: want an object {"_min": ..., "_max": ...}: duplicate key "_max"`},
		{`{"due":{"_min":null,"_min":"2017-06-14T00:00:00"}}`,
			`daterange: want an object {"_min": ..., "_max": ...}: duplicate key "_min"`},
	} {
		var h holder
		err := json.Unmarshal([]byte(c.in), &h)
		if err == nil || err.Error() != c.msg {
			t.Errorf("%s: error %v, want %s", c.in, err, c.msg)
		}
		if h.Due.Min != nil || h.Due.Max != nil {
			t.Errorf("%s: refused, yet decoded as %v", c.in, h.Due)
		}
	}
}

func TestUnmarshalJSONRejects(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, msg string }{
		{`"today"`, "want an object"},
		{`[]`, "want an object"},
		{`42`, "want an object"},
		{`{"_min":42}`, "_min: want an ISO 8601 string"},
		{`{"_max":true}`, "_max: want an ISO 8601 string"},
		{`{"_min":{}}`, "_min: want an ISO 8601 string"},
		{`{"_min":"yesterday"}`, "not an ISO 8601 date-time"},
		{`{"_min":"2017-06-13"}`, "not an ISO 8601 date-time"},
		{`{"_min":"2017-06-13 00:00:00"}`, "not an ISO 8601 date-time"},
		{`{"_min":"2017-02-30T00:00:00"}`, "not an ISO 8601 date-time"},
		{`{"_min":"2017-06-13T24:00:00"}`, "not an ISO 8601 date-time"},
		{`{"_min":"` + strings.Repeat("9", 100) + `"}`, "too long"},
		{`{"start":"2017-06-13T00:00:00"}`, "unknown field"},
		// Keys are exact and unique (encoding/json alone would take both).
		{`{"_MIN":"2017-06-13T00:00:00"}`, `unknown field "_MIN"`},
		{`{"_Max":"2017-06-13T00:00:00"}`, `unknown field "_Max"`},
		{`{"_min":"2017-06-13T00:00:00","_min":"2017-06-14T00:00:00"}`, `duplicate key "_min"`},
		{`{"_max":null,"_max":null}`, `duplicate key "_max"`},
		{`{"_min":}`, "want an object"},
		{`{"_min" "2017-06-13T00:00:00"}`, "want an object"},
		{`{"_min":"2017-06-13T00:00:00",}`, "want an object"},
		{`{"_min":"2017-06-14T00:00:00","_max":"2017-06-13T23:59:59.999"}`, "is after _max"},
		{`{"_min":"2017-06-13T00:00:00"`, "want an object"},
		{`{"_min":"2017-06-13T00:00:00"} {}`, "unexpected data after"},
		{`{"_min":"2017-06-13T00:00:00"}]`, "unexpected data after"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			var r Range
			err := r.UnmarshalJSON([]byte(c.in)) // directly: encoding/json would catch bad syntax first
			if err == nil {
				t.Fatalf("accepted: %v", r)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not say %q", err, c.msg)
			}
			if r.Min != nil || r.Max != nil {
				t.Errorf("Range changed on error: %v", r)
			}
		})
	}
}

// TestWireRoundTrip: what Parse returns survives MarshalJSON and
// UnmarshalJSON as the same wall clock.
func TestWireRoundTrip(t *testing.T) {
	t.Parallel()
	ist := time.FixedZone("+05:30", 5*3600+1800)
	now := time.Date(2017, 6, 13, 22, 0, 0, 0, ist)
	for _, stmt := range []string{"today", "last 2 weeks", "from 1 jan 2017", "to yesterday",
		"between 6 quarters ago and 2 months ago"} {
		r, err := Parse(stmt, now)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back Range
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		b2, _ := json.Marshal(back)
		if string(b) != string(b2) {
			t.Errorf("%q: %s became %s", stmt, b, b2)
		}
	}
}

func TestContains(t *testing.T) {
	t.Parallel()
	r, err := Parse("this week", time.Date(2017, 6, 13, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		t    time.Time
		want bool
	}{
		{time.Date(2017, 6, 11, 23, 59, 59, 999_999_999, time.UTC), false},
		{time.Date(2017, 6, 12, 0, 0, 0, 0, time.UTC), true},
		{time.Date(2017, 6, 18, 23, 59, 59, 999_000_000, time.UTC), true},
		{time.Date(2017, 6, 18, 23, 59, 59, 999_000_001, time.UTC), false},
		{time.Date(2017, 6, 12, 4, 0, 0, 0, time.FixedZone("+05:00", 5*3600)), false}, // 23:00 UTC on the 11th
	}
	for _, c := range cases {
		if got := r.Contains(c.t); got != c.want {
			t.Errorf("Contains(%v) = %v, want %v", c.t, got, c.want)
		}
	}
	if !(Range{}).Contains(time.Time{}) {
		t.Error("the open range does not contain everything")
	}
	if (Range{Max: tp(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC))}).Contains(time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Error("to-range contains a later time")
	}
}
