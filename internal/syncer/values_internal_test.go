package syncer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/appkitgo/appkit/internal/testkit"
)

func TestConvert(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind kind
		in   string
		want any // nil for an empty value; error strings start with "!"
	}{
		{kText, `"a"`, "a"},
		{kText, `""`, ""},
		{kText, `12`, "12"},
		{kText, `{"x":1}`, `{"x":1}`},
		{kEmail, `"a@b.c"`, "a@b.c"},
		{kEmail, `"nope"`, `!not an e-mail address`},
		{kBool, `"yes"`, true},
		{kBool, `"checked"`, true},
		{kBool, `"off"`, false},
		{kBool, `""`, nil},
		{kBool, `1`, true},
		{kBool, `"maybe"`, "!want a boolean"},
		{kDecimal, `1.50`, "1.50"},
		{kDecimal, `"2"`, "2"},
		{kDecimal, `1e3`, "1000"},
		{kDecimal, `true`, "!want a number"},
		{kDecimal, `"x"`, "!want a number"},
		{kInt, `4`, int64(4)},
		{kInt, `"4"`, int64(4)},
		{kInt, `4.5`, "!want an integer"},
		{kDateTime, `"2024-02-03T04:05:06+02:00"`, int64(1706925906000)},
		{kDateTime, `"2024-02-03T04:05:06"`, int64(1706933106000)},
		{kDateTime, `"2024-02-03"`, int64(1706918400000)},
		{kDateTime, `"yesterday"`, "!want an ISO 8601"},
		{kDate, `"2024-02-03"`, "2024-02-03"},
		{kDate, `"2024-02-03T23:00:00Z"`, "2024-02-03"},
		{kDateRange, `"{\"start\":\"2024-01-01\",\"end\":\"2024-01-08\"}"`, [2]any{"2024-01-01", "2024-01-07"}},
		{kDateRange, `{"start":"2024-01-01"}`, [2]any{"2024-01-01", nil}},
		{kDateRange, `{"start":"2024-01-09","end":"2024-01-08"}`, "!ends before it starts"},
		{kDateRange, `"not json"`, "!want a range"},
		{kDateTimeRange, `{"start":"2024-01-01T00:00:00Z","end":"2024-01-01T01:00:00Z"}`, [2]any{int64(1704067200000), int64(1704070800000)}},
		{kSelect, `"todo"`, "todo"},
		{kSelect, `[1]`, "!want an option"},
		{kList, `["a","b"]`, `["a","b"]`},
		{kList, `"a, b,,c"`, `["a","b","c"]`},
		{kList, `[{}]`, "!want an array of strings"},
		{kRefOne, `"p1"`, "p1"},
		{kRefOne, `7`, "7"},
		{kRefOne, `["p1"]`, "p1"},
		{kRefOne, `["p1","p2"]`, "!holds one id"},
		{kRefOne, `{}`, "!want a related id"},
		{kRefMany, `["p1",2]`, []string{"p1", "2"}},
		{kRefMany, `"p1,p2"`, []string{"p1", "p2"}},
		{kHTML, `"<p>Hi <b>there</b></p>"`, "Hi **there**\n"},
		{kMarkdown, `3`, "3"},
		{kMarkdown, `["# A","b"]`, "# A\nb"},
		{kMarkdown, `{"a":1}`, "!want markdown"},
		{kText, `["a","b"]`, "a\nb"},
		{kDateTime, `"11/14/2023, 10:13 PM"`, int64(1700000000000 - 20000)},
		{kJSON, `{"a":[1]}`, `{"a":[1]}`},
	} {
		got, _, err := convert(tc.kind, "f", testkit.DecodeJSON(t, tc.in))
		if s, ok := tc.want.(string); ok && len(s) > 0 && s[0] == '!' {
			if err == nil || !bytes.Contains([]byte(err.Error()), []byte(s[1:])) {
				t.Errorf("%s %s: got %#v, %v; want error %q", tc.kind, tc.in, got, err, s[1:])
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s: got %#v, %v; want %#v", tc.kind, tc.in, got, err, tc.want)
		}
	}
}

// FuzzConvert: no value of any kind panics, and what converts has the
// column type of its kind.
func FuzzConvert(f *testing.F) {
	for _, s := range []string{`"a"`, `1.5`, `"2024-01-01"`, `{"start":"2024-01-01","end":"x"}`, `["a",1]`, `null`, `"{\"start\":\"2024-01-01\"}"`, `"<p>x</p>"`, `true`} {
		f.Add(s)
	}
	kinds := []kind{kText, kEmail, kBool, kMarkdown, kHTML, kDateRange, kDateTimeRange, kSelect, kList, kDecimal, kInt, kDateTime, kDate, kRefOne, kRefMany, kJSON}
	f.Fuzz(func(t *testing.T, s string) {
		dec := json.NewDecoder(bytes.NewReader([]byte(s)))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		for _, k := range kinds {
			got, _, err := convert(k, "f", v)
			if err != nil || got == nil {
				continue
			}
			want := map[kind]string{kInt: "int64", kDateTime: "int64", kBool: "bool", kRefMany: "[]string", kDateRange: "[2]interface {}", kDateTimeRange: "[2]interface {}"}[k]
			if want == "" {
				want = "string"
			}
			if g := fmt.Sprintf("%T", got); g != want {
				t.Fatalf("%s %s: %T, want %s", k, s, got, want)
			}
		}
	})
}

// FuzzErrorFromBody: any error body gives a message and never panics.
func FuzzErrorFromBody(f *testing.F) {
	for _, s := range []string{`{"message":"m","code":1,"tryLater":true}`, `not json`, `{"message":{"a":1}}`, ``} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e := errorFromBody("/x", 500, []byte(s))
		if e.Message == "" || len(e.Message) > 504 {
			t.Fatalf("message %q", e.Message)
		}
	})
}
