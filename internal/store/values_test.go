package store

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/testkit"
)

func TestScalarArgTable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		prim string
		in   string // JSON
		want any    // SQL value, or nil for an error
		out  string // JSON of the value read back
	}{
		{TInt, `42`, int64(42), `42`},
		{TInt, `42.0`, int64(42), `42`},
		{TInt, `4.5`, nil, ``},
		{TInt, `"4"`, nil, ``},
		{TDecimal, `"0.33"`, "0.33", `"0.33"`},
		{TDecimal, `"-12.500"`, "-12.500", `"-12.500"`},
		{TDecimal, `0.33`, "0.33", `"0.33"`},
		{TDecimal, `"1e3"`, nil, ``},
		{TDecimal, `"NaN"`, nil, ``},
		{TBool, `true`, true, `true`},
		{TBool, `1`, nil, ``},
		{TText, `"Don't panic"`, "Don't panic", `"Don't panic"`},
		{TEmail, `"contact@megadodo.com"`, "contact@megadodo.com", `"contact@megadodo.com"`},
		{TEmail, `"nope"`, nil, ``},
		{TEmoji, `"🏏"`, "🏏", `"🏏"`},
		{TDate, `"1979-10-12"`, "1979-10-12", `"1979-10-12"`},
		{TDate, `"1979-02-30"`, nil, ``},
		{TDateTime, `"2019-06-24T12:25:20.812Z"`, int64(1561379120812), `"2019-06-24T12:25:20.812Z"`},
		{TDateTime, `"2019-06-24T14:25:20.812+02:00"`, int64(1561379120812), `"2019-06-24T12:25:20.812Z"`},
		{TDateTime, `"2019-06-24"`, nil, ``},
		{TUUID, `"ACB5EF80-9679-11E9-BC42-526AF7764F64"`, "acb5ef80-9679-11e9-bc42-526af7764f64", `"acb5ef80-9679-11e9-bc42-526af7764f64"`},
		{TUUID, `"acb5ef80967911e9bc42526af7764f64"`, nil, ``},
		{TRank, `1000`, int64(1000), `1000`},
		{TJSON, `{"paranoid?": true}`, `{"paranoid?":true}`, `{"paranoid?":true}`},
	}
	for _, c := range cases {
		v := testkit.DecodeJSON(t, c.in)
		got, err := ScalarArg("f", c.prim, v)
		if c.want == nil {
			if e, ok := AsError(err); !ok || e.Name != NameInvalidValue {
				t.Errorf("%s %s: got %v, %v; want %s", c.prim, c.in, got, err, NameInvalidValue)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s %s: got %#v, %v; want %#v", c.prim, c.in, got, err, c.want)
			continue
		}
		b, _ := json.Marshal(OutScalar(c.prim, got))
		if string(b) != c.out {
			t.Errorf("%s %s read back as %s, want %s", c.prim, c.in, b, c.out)
		}
	}
	s, e, err := RangeArgs("r", TDateTimeRange, map[string]any{"start": "2019-06-18T02:40:00.000Z", "end": "2019-07-25T11:40:00.000Z"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(OutRange(TDateTimeRange, s, e))
	if string(b) != `{"end":"2019-07-25T11:40:00.000Z","start":"2019-06-18T02:40:00.000Z"}` {
		t.Errorf("range read back as %s", b)
	}
}

// TestScalarArgRefusals: the message of each refusal of a string type says
// what the value should have been, naming the field.
func TestScalarArgRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		prim string
		in   any
		want string
	}{
		{TText, 1.5, "field f: want a string, got a number"},
		{TText, "a\x00b", "field f: text must not contain a NUL character (U+0000)"},
		{TEmoji, "\xff", "field f: text must be valid UTF-8"},
		{TEmail, true, "field f: want an e-mail string, got a boolean"},
		{TEmail, "\xff", "field f: text must be valid UTF-8"},
		{TEmail, "a b@c", `field f: not an e-mail address: "a b@c"`},
		{TDate, 1.5, "field f: want a YYYY-MM-DD string, got a number"},
		{TDate, "1979-02-30", `field f: not a YYYY-MM-DD date: "1979-02-30"`},
		{TDateTime, []any{}, "field f: want an ISO 8601 date-time string, got an array"},
		{TDateTime, "2019-06-24", `field f: not an ISO 8601 date-time: "2019-06-24"`},
		{TUUID, 1.5, "field f: want a uuid string, got a number"},
		{TUUID, "acb5ef80967911e9bc42526af7764f64", `field f: not a uuid: "acb5ef80967911e9bc42526af7764f64"`},
	}
	for _, c := range cases {
		got, err := ScalarArg("f", c.prim, c.in)
		e, ok := AsError(err)
		if !ok || e.Name != NameInvalidValue || e.Message != c.want || e.Data["field"] != "f" {
			t.Errorf("%s %#v: got %v, %v; want %s: %s", c.prim, c.in, got, err, NameInvalidValue, c.want)
		}
	}
}

// FuzzScalarArg: any JSON value for any primitive type is accepted or refused
// with entity.error/invalid-value, never a panic, and an accepted value reads
// back to a value that is accepted again unchanged.
func FuzzScalarArg(f *testing.F) {
	for _, s := range []string{`1`, `"1.5"`, `true`, `"2024-01-01"`, `"2024-01-01T00:00:00Z"`, `{"a":1}`, `"acb5ef80-9679-11e9-bc42-526af7764f64"`, `null`, `[1]`} {
		f.Add(s, uint8(0))
	}
	prims := []string{TInt, TDecimal, TBool, TText, TEmail, TEmoji, TDate, TDateTime, TUUID, TRank, TJSON}
	f.Fuzz(func(t *testing.T, s string, p uint8) {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		prim := prims[int(p)%len(prims)]
		got, err := ScalarArg("f", prim, v)
		if err != nil {
			if e, ok := AsError(err); !ok || e.Name != NameInvalidValue {
				t.Fatalf("%s %s: %v", prim, s, err)
			}
			return
		}
		if got == nil || prim == TJSON {
			return
		}
		back, _ := json.Marshal(OutScalar(prim, got))
		again, err := ScalarArg("f", prim, testkit.DecodeJSON(t, string(back)))
		if err != nil || again != got {
			t.Fatalf("%s %s: %#v reads back as %s → %#v, %v", prim, s, got, back, again, err)
		}
	})
}

// FuzzRebind: every ? outside quotes becomes $1..$n in order; nothing else changes.
func FuzzRebind(f *testing.F) {
	for _, s := range []string{"a = ?", "x = '?' AND y = ?", "'", "??"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Postgres.Rebind(s)
		back := out
		for i := 1; i <= strings.Count(s, "?"); i++ {
			back = strings.Replace(back, "$"+itoa(i), "?", 1)
		}
		if !strings.Contains(s, "$") && back != s {
			t.Fatalf("Rebind(%q) = %q", s, out)
		}
	})
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// decimalPattern is the grammar isDecimal checks by hand.
var decimalPattern = regexp.MustCompile(`^[-+]?[0-9]{1,30}(\.[0-9]{1,30})?$`)

// FuzzIsDecimal: the hand-written check accepts exactly what the pattern
// matches.
func FuzzIsDecimal(f *testing.F) {
	for _, s := range []string{"1", "-1.5", "+0.0", ".5", "5.", "1e3", "--1", "", "١", strings.Repeat("9", 30) + "." + strings.Repeat("9", 30), strings.Repeat("9", 31), "1.2.3", " 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isDecimal(s), decimalPattern.MatchString(s); got != want {
			t.Fatalf("isDecimal(%q) = %v, the pattern says %v", s, got, want)
		}
	})
}
