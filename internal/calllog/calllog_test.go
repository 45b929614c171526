package calllog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAsked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		v             string
		calls, bodies bool
	}{
		{"", false, false},
		{"calls", true, false},
		{"calls, bodies", true, true},
		{" Calls ,BODIES", true, true},
		{"bodies", false, false},
		{"calls, later, other", true, false},
		{"calls," + strings.Repeat(" ", 100), false, false},
	} {
		c, b := Asked(tc.v)
		if c != tc.calls || b != tc.bodies {
			t.Errorf("Asked(%q) = %v, %v, want %v, %v", tc.v, c, b, tc.calls, tc.bodies)
		}
	}
}

func TestContext(t *testing.T) {
	t.Parallel()
	if From(context.Background()) != nil {
		t.Fatal("a collector in an empty context")
	}
	c := New(true)
	if From(NewContext(context.Background(), c)) != c {
		t.Fatal("the collector did not come back")
	}
	var none *Collector
	none.Add(Call{Method: "GET", URL: "x"}) // a nil collector collects nothing
	if none.Header() != "" || none.Bodies() {
		t.Fatal("a nil collector reported")
	}
}

func TestCollectorBounds(t *testing.T) {
	t.Parallel()
	for _, bodies := range []bool{true, false} {
		c := New(bodies)
		for i := range MaxCalls + 7 {
			c.Add(Call{Method: "GET", URL: fmt.Sprintf("https://api.example/%d", i), Status: 200, Request: "{}", Response: "{}",
				Error: "line\nbreak"})
		}
		h := c.Header()
		calls, dropped, err := Decode(h)
		if err != nil {
			t.Fatal(err)
		}
		if len(calls)+dropped != MaxCalls+7 || len(calls) > MaxCalls {
			t.Fatalf("bodies %v: %d calls, %d dropped; want at most %d, all counted", bodies, len(calls), dropped, MaxCalls)
		}
		if bodies && (len(calls) != MaxCalls || calls[0].Request != "{}") {
			t.Fatalf("bodies %v: %d calls, body %q; want %d, the body", bodies, len(calls), calls[0].Request, MaxCalls)
		}
		if !bodies && (len(h) > MaxHeaderCalls || len(calls) < 20 || calls[0].Request != "" || calls[0].Response != "") {
			t.Fatalf("bodies %v: %d bytes, %d calls, bodies %q %q; want at most %d bytes, bodies left out", bodies, len(h), len(calls),
				calls[0].Request, calls[0].Response, MaxHeaderCalls)
		}
		if calls[0].Error != "line break" {
			t.Fatalf("error %q: want its control characters replaced", calls[0].Error)
		}
	}
	if New(false).Header() != "" {
		t.Fatal("a header without calls")
	}
}

func TestHeaderFits(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("é\x7f<", MaxBody) // escaped: 6+6+6 bytes per 4 bytes
	c := New(true)
	for i := range MaxCalls {
		c.Add(Call{Method: "POST", URL: "https://api.example/ü/" + fmt.Sprint(i) + "?q=🙂", Status: 201, DurationMS: 3, Bytes: 10,
			Request: big, Response: big})
	}
	h := c.Header()
	if len(h) > MaxHeader {
		t.Fatalf("header of %d bytes, want at most %d", len(h), MaxHeader)
	}
	for i := 0; i < len(h); i++ {
		if h[i] < 0x20 || h[i] >= 0x7f {
			t.Fatalf("byte %#x at %d: want printable ASCII only", h[i], i)
		}
	}
	calls, dropped, err := Decode(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != MaxCalls || dropped != 0 {
		t.Fatalf("%d calls, %d dropped: the bodies, not the calls, should have gone", len(calls), dropped)
	}
	if calls[0].Request == "" || calls[0].Request != Cut(big, MaxBody) {
		t.Fatal("the first call's bodies went: the last calls' should go first")
	}
	if calls[MaxCalls-1].Request != "" {
		t.Fatal("the last call kept its body")
	}
	if calls[7].URL != "https://api.example/ü/7?q=🙂" {
		t.Fatalf("URL %q did not come back", calls[7].URL)
	}

	// Calls that do not fit even without bodies are dropped and counted.
	long := New(false)
	for range MaxCalls {
		long.Add(Call{Method: "GET", URL: "https://api.example/" + strings.Repeat("ü", MaxURL)})
	}
	h = long.Header()
	calls, dropped, err = Decode(h)
	if err != nil || len(h) > MaxHeader {
		t.Fatalf("%d bytes: %v", len(h), err)
	}
	if len(calls) == MaxCalls || len(calls)+dropped != MaxCalls {
		t.Fatalf("%d calls, %d dropped: want some dropped, all counted", len(calls), dropped)
	}
}

// A call the host would refuse is counted as dropped by the app, not sent:
// the report of the others still decodes. A long method is cut, without
// "…", and kept.
func TestAddKeepsTheReportDecodable(t *testing.T) {
	t.Parallel()
	good := Call{Method: "GET", URL: "https://api.example/x", Status: 200}
	for _, tc := range []struct {
		name       string
		mod        func(*Call)
		keptMethod string // "": the call is dropped
	}{
		{"long method", func(c *Call) { c.Method = "PROPFINDEXTENDEDMORE" }, "PROPFINDEXTENDED"},
		{"long method with a line break", func(c *Call) { c.Method = "PROPFIND\nEXTENDEDMORE" }, ""},
		{"no method", func(c *Call) { c.Method = "" }, ""},
		{"method with a space", func(c *Call) { c.Method = "GET X" }, ""},
		{"method beyond ASCII", func(c *Call) { c.Method = "PÖST" }, ""},
		{"no url", func(c *Call) { c.URL = "" }, ""},
		{"status", func(c *Call) { c.Status = 1000 }, ""},
		{"negative status", func(c *Call) { c.Status = -1 }, ""},
		{"duration", func(c *Call) { c.DurationMS = maxDurationMS + 1 }, ""},
		{"negative duration", func(c *Call) { c.DurationMS = -1 }, ""},
		{"bytes", func(c *Call) { c.Bytes = maxBytes + 1 }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bad := good
			tc.mod(&bad)
			for _, bodies := range []bool{false, true} {
				c := New(bodies)
				c.Add(good)
				c.Add(bad)
				c.Add(good)
				calls, dropped, err := Decode(c.Header())
				if err != nil {
					t.Fatalf("bodies %v: the report is refused: %v", bodies, err)
				}
				wantCalls, wantDropped := 2, 1
				if tc.keptMethod != "" {
					wantCalls, wantDropped = 3, 0
				}
				if len(calls) != wantCalls || dropped != wantDropped {
					t.Fatalf("bodies %v: %d calls, %d dropped; want %d, %d", bodies, len(calls), dropped, wantCalls, wantDropped)
				}
				if tc.keptMethod != "" && calls[1].Method != tc.keptMethod {
					t.Fatalf("method %q, want %q", calls[1].Method, tc.keptMethod)
				}
			}
		})
	}
}

// More calls dropped than the host accepts are reported as MaxDropped.
func TestDroppedIsBounded(t *testing.T) {
	t.Parallel()
	c := New(false)
	c.Add(Call{Method: "GET", URL: "https://api.example/x"})
	for range MaxDropped + 5 {
		c.calls.Drop()
	}
	calls, dropped, err := Decode(c.Header())
	if err != nil || len(calls) != 1 || dropped != MaxDropped {
		t.Fatalf("%d calls, %d dropped, %v; want 1, %d", len(calls), dropped, err, MaxDropped)
	}
}

// Every value is printable ASCII, whatever the call holds.
func TestHeaderIsPrintableASCII(t *testing.T) {
	t.Parallel()
	for _, body := range []string{"a\x7fb", "tab\there", "\x00\x1f", "é", "🙂", "\xff\xfe", "\u2028"} {
		c := New(true)
		c.Add(Call{Method: "GET", URL: "https://x/" + body, Response: body, Error: body})
		h := c.Header()
		for i := 0; i < len(h); i++ {
			if h[i] < 0x20 || h[i] >= 0x7f {
				t.Fatalf("%q: byte %#x in %s", body, h[i], h)
			}
		}
		if _, _, err := Decode(h); err != nil {
			t.Fatalf("%q: %v", body, err)
		}
	}
}

// The control characters are C0, DEL and C1, no more; a rune beyond the
// BMP is written as its surrogate pair.
func TestEscapes(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a\x00\x1fb\x7f\u0080\u009f": "a  b   ",
		"\u00a0é\u2028":              "\u00a0é\u2028",
	} {
		if got := oneLine(in); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		`"🙂"`:            `"\ud83d\ude42"`,
		"\"\U0010ffff\"": `"\udbff\udfff"`,
		"\"é\u2028\"":    `"\u00e9\u2028"`,
		"\"\x7f\"":       `"\u007f"`,
	} {
		if got := string(asciiJSON([]byte(in))); got != want {
			t.Errorf("asciiJSON(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestDecodeRefuses(t *testing.T) {
	t.Parallel()
	call := func(mod func(*Call)) string {
		c := Call{Method: "GET", URL: "https://api.example/x", Status: 200}
		mod(&c)
		b, _ := json.Marshal(report{Calls: []Call{c}})
		return string(b)
	}
	many, _ := json.Marshal(report{Calls: make([]Call, MaxCalls+1)})
	for name, v := range map[string]string{
		"too long":        `{"calls":[],"dropped":0` + strings.Repeat(" ", MaxHeaderRead) + `}`,
		"not JSON":        `calls`,
		"empty":           ``,
		"unknown field":   `{"calls":[],"dropped":0,"more":1}`,
		"unknown in call": `{"calls":[{"method":"GET","url":"u","durationMs":1,"x":1}]}`,
		"two values":      `{"calls":[]} {}`,
		"trailing":        `{"calls":[]}x`,
		"many calls":      strings.Replace(string(many), `"method":""`, `"method":"GET"`, -1),
		"negative drops":  `{"calls":[],"dropped":-1}`,
		"many drops":      `{"calls":[],"dropped":1e9}`,
		"no method":       call(func(c *Call) { c.Method = "" }),
		"bad method":      call(func(c *Call) { c.Method = "GET\r\nX" }),
		"long method":     call(func(c *Call) { c.Method = strings.Repeat("A", MaxMethod+1) }),
		"no url":          call(func(c *Call) { c.URL = "" }),
		"long url":        call(func(c *Call) { c.URL = strings.Repeat("u", MaxURL+1) }),
		"control in url":  call(func(c *Call) { c.URL = "a\x00b" }),
		"long error":      call(func(c *Call) { c.Error = strings.Repeat("e", MaxError+1) }),
		"long body":       call(func(c *Call) { c.Response = strings.Repeat("b", MaxBody+1) }),
		"bad status":      call(func(c *Call) { c.Status = 1000 }),
		"negative status": call(func(c *Call) { c.Status = -1 }),
		"bad duration":    call(func(c *Call) { c.DurationMS = -1 }),
		"long duration":   call(func(c *Call) { c.DurationMS = maxDurationMS + 1 }),
		"bad bytes":       call(func(c *Call) { c.Bytes = -5 }),
		"wrong type":      `{"calls":[{"method":1}]}`,
	} {
		if calls, dropped, err := Decode(v); !errors.Is(err, ErrInvalid) || calls != nil || dropped != 0 {
			t.Errorf("%s: %d calls, %d dropped, %v; want ErrInvalid and nothing", name, len(calls), dropped, err)
		}
	}
	calls, dropped, err := Decode(call(func(c *Call) { c.Response = "line\none" }))
	if err != nil || len(calls) != 1 || dropped != 0 {
		t.Fatalf("a valid report refused: %v", err)
	}
}

func TestCut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcdef", 5, "ab…"},
		{"ééé", 5, "é…"},
		{"ééé", 4, "…"},
		{"aéé", 5, "aéé"},
		{"a\xffb", 10, "a\uFFFDb"},
	} {
		got := Cut(tc.s, tc.n)
		if got != tc.want || len(got) > max(tc.n, len("…")) || !utf8.ValidString(got) {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// FuzzDecode feeds the host's parser anything: it never panics, and what
// it accepts is within every bound.
func FuzzDecode(f *testing.F) {
	c := New(true)
	c.Add(Call{Method: "GET", URL: "https://api.example/é", Status: 200, Request: `{"a":1}`, Response: "ok"})
	f.Add(c.Header())
	f.Add(`{"calls":[],"dropped":3}`)
	f.Add(`{"calls":[{"method":"GET","url":"u","durationMs":1}]} `)
	f.Add(`{"calls":null}`)
	f.Fuzz(func(t *testing.T, v string) {
		calls, dropped, err := Decode(v)
		if err != nil {
			if calls != nil || dropped != 0 {
				t.Fatal("a refused report returned data")
			}
			return
		}
		if len(calls) > MaxCalls || dropped < 0 || dropped > MaxDropped {
			t.Fatalf("%d calls, %d dropped", len(calls), dropped)
		}
		for _, c := range calls {
			if c.check() != nil {
				t.Fatalf("accepted %+v", c)
			}
		}
	})
}
