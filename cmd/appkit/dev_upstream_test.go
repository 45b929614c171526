package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/appkitgo/appkit/internal/apps"
)

// After a sync, dev prints the calls to the app that made upstream calls
// or failed, each with its calls below, cleaned, masked and bounded.
func TestPrintDevExchanges(t *testing.T) {
	t.Parallel()
	const page = "http://127.0.0.1:8080/runs/r1"
	data := func(typ string, calls ...apps.UpstreamCall) apps.Exchange {
		return apps.Exchange{Method: "POST", Path: "/api/v1/synchronizer/data", Status: 200, DurationMS: 120,
			Request: `{"requestedType":"` + typ + `","types":["task"]}`, UpstreamReport: apps.UpstreamReport{Upstream: calls}}
	}
	get := func(u string) apps.UpstreamCall {
		return apps.UpstreamCall{Method: "GET", URL: u, Status: 200, DurationMS: 80, Bytes: 2048}
	}
	many := make([]apps.Exchange, 13)
	for i := range many {
		many[i] = data(fmt.Sprintf("t%d", i), get("https://api.example.com/t"))
	}
	for _, tc := range []struct {
		name    string
		run     apps.Run
		want    string
		wantAll bool // want is the whole output, else its start
	}{
		{"nothing of note", apps.Run{Exchanges: []apps.Exchange{
			{Method: "GET", Path: "/", Status: 200, DurationMS: 3},
			{Method: "POST", Path: "/api/v1/synchronizer/data", Status: 200, DurationMS: 5},
		}}, "", true},
		{"only calls not kept", apps.Run{Report: &apps.RunReport{DroppedExchanges: 3}, Exchanges: []apps.Exchange{
			{Method: "POST", Path: "/api/v1/synchronizer/data", Status: 200, DurationMS: 5},
		}}, `  calls to the app with upstream calls or failures:
  … 3 more (console: ` + page + `)
`, true},
		{"upstream calls", apps.Run{Exchanges: []apps.Exchange{
			{Method: "POST", Path: "/api/v1/synchronizer/schema", Status: 200, DurationMS: 4},
			data("task",
				get("https://user:pw@api.example.com/tasks?page=2&access_token=s3cret#frag"),
				apps.UpstreamCall{Method: "GET", URL: "https://api.example.com/tasks?page=3", DurationMS: 3, Error: "dial tcp: connection refused\x1b[2J"},
				apps.UpstreamCall{Method: "POST", URL: "https://api.example.com/big", Status: 503, DurationMS: 1200, Bytes: 3 << 20},
			),
		}}, `  calls to the app with upstream calls or failures:
  POST /api/v1/synchronizer/data task → 200, 120 ms
      GET https://***@api.example.com/tasks?page=2&access_token=*** → 200, 80 ms, 2.0 KiB
      GET https://api.example.com/tasks?page=3 → no answer, 3 ms, error: dial tcp: connection refused�[2J
      POST https://api.example.com/big → 503, 1200 ms, 3.0 MiB
`, true},
		{"a failed call to the app", apps.Run{Exchanges: []apps.Exchange{
			{Method: "POST", Path: "/api/v1/synchronizer/data", Status: 500, DurationMS: 7, Request: `{"types":["a"],"requestedType":"note"` + strings.Repeat(" ", 100) + "…"},
			{Method: "POST", Path: "/api/v1/synchronizer/data", DurationMS: 30000, Error: "timeout awaiting response headers"},
		}}, `  calls to the app with upstream calls or failures:
  POST /api/v1/synchronizer/data note → 500, 7 ms
  POST /api/v1/synchronizer/data → no answer, 30000 ms, error: timeout awaiting response headers
`, true},
		{"bounded", apps.Run{Report: &apps.RunReport{DroppedExchanges: 4}, Exchanges: append([]apps.Exchange{
			func() apps.Exchange {
				ex := data("big")
				for i := range 7 {
					ex.Upstream = append(ex.Upstream, get(fmt.Sprintf("https://api.example.com/p%d", i)))
				}
				ex.UpstreamDropped = 2
				return ex
			}()}, many...)}, "", false},
	} {
		var b bytes.Buffer
		printDevExchanges(&b, &tc.run, page)
		got := b.String()
		if tc.wantAll && got != tc.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.want)
		}
		if tc.name == "bounded" {
			lines := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
			if n := strings.Count(got, "\n  POST "); n != devExchanges {
				t.Errorf("bounded: %d exchanges shown, want %d:\n%s", n, devExchanges, got)
			}
			if n := strings.Count(got, "/p"); n != devUpstreamCalls {
				t.Errorf("bounded: %d calls of the first exchange shown, want %d:\n%s", n, devUpstreamCalls, got)
			}
			if !strings.Contains(got, "\n      … 4 more upstream calls\n") {
				t.Errorf("bounded: no count of the calls not shown (2 beyond the bound, 2 dropped by the app):\n%s", got)
			}
			if last := lines[len(lines)-1]; last != "  … 8 more (console: "+page+")" {
				t.Errorf("bounded: last line %q, want the 4 exchanges beyond the bound and the 4 not kept", last)
			}
		}
	}
}

// devClean keeps what a terminal would read as a command away, and cuts.
func TestDevClean(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"plain", 40, "plain"},
		{"a\x1b]8;;http://evil\x07b", 40, "a�]8;;http://evil�b"},
		{"line\nbreak\r", 40, "line�break�"},
		{"bad \xff utf8", 40, "bad � utf8"},
		{"bidi \u202e x", 40, "bidi � x"},
		{strings.Repeat("é", 10), 8, "éééé…"},
		{"exactly8", 8, "exactly8"},
	} {
		if got := devClean(tc.in, tc.max); got != tc.want {
			t.Errorf("devClean(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"https://api.example.com/x?api_key=k&q=1", "https://api.example.com/x?api_key=***&q=1"},
		{"http://u:p@%zz/?token=x#access_token=y", "http://***@%zz/?token=***"},
		{"/relative?sig=abc", "/relative?sig=***"},
	} {
		if got := devMaskURL(tc.in); got != tc.want {
			t.Errorf("devMaskURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// End to end: a session on an app made by "appkit new" (whose calls to its
// demo API are reported) prints, after its first sync, the calls to the
// app (validate, then the data pages) with their upstream calls below,
// the URLs those of the demo API.
func TestDevPrintsUpstreamCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a new module")
	}
	dir := newDevApp(t)
	r := startDev(t, nil, dir, "--addr", "127.0.0.1:0", "--store", "sqlite:"+filepath.Join(t.TempDir(), "dev.db"), "--account", "token=demo")
	r.out.waitFor(t, regexp.MustCompile(`note\s+completed\s+120\s+0\s+0\s+0\s+0\n`))
	r.out.waitFor(t, regexp.MustCompile(`\A  calls to the app with upstream calls or failures:\n(?:.*\n)*?  POST /api/v1/synchronizer/data note → 200, \d+ ms\n      GET http://127\.0\.0\.1:\d+/notes\S* → 200, \d+ ms, \d`))
	r.stop()
}

// What dev prints of an app's report is bounded and holds no control
// character, whatever the report.
func FuzzDevExchangeText(f *testing.F) {
	f.Add(`{"requestedType":"note"}`, "https://u:p@api.example.com/x?token=t#f")
	f.Add("\x1b[2J\"requestedType\": \"a\\\"b\"", "http://%zz")
	f.Fuzz(func(t *testing.T, body, rawURL string) {
		for _, s := range []string{requestedType(body), devMaskURL(rawURL), devClean(body, devTextMax)} {
			if len(s) > devTextMax+len("…") {
				t.Fatalf("%d bytes: %q", len(s), s)
			}
			for _, r := range s {
				if unicode.IsControl(r) {
					t.Fatalf("a control character in %q", s)
				}
			}
		}
	})
}
