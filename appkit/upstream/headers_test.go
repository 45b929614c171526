package upstream_test

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit/upstream"
)

func TestParseLink(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		next string
		n    int
		err  string
	}{
		{`<https://api.github.com/repositories/1/issues?page=2>; rel="next", <https://api.github.com/repositories/1/issues?page=5>; rel="last"`, "https://api.github.com/repositories/1/issues?page=2", 2, ""},
		{`<https://a.example/2>; rel=next`, "https://a.example/2", 1, ""},
		{`<https://a.example/2>; title="a, b; c"; rel="prev next"`, "https://a.example/2", 1, ""},
		{`<https://a.example/2>;REL="Next"`, "https://a.example/2", 1, ""},
		{`<https://a.example/1>; rel="prev"`, "", 1, ""},
		{`<https://a.example/a,b>; rel="next"`, "https://a.example/a,b", 1, ""},
		{`, <https://a.example/2>; rel="next",`, "https://a.example/2", 1, ""},
		{``, "", 0, ""},
		{`<https://a.example/2`, "", 0, "< without >"},
		{`https://a.example/2; rel="next"`, "", 0, "must start with <"},
		{`<https://a.example/2>; rel="next`, "", 0, "not closed"},
		{`<https://a.example/2> rel="next"`, "", 0, "must start with ;"},
		{`<https://a.example/2>; ="next"`, "", 0, "no name"},
		{`<https://a.example/2>; rel=`, "", 0, "no value"},
		{strings.Repeat("<x>; rel=a, ", 2000), "", 0, "bytes"},
	} {
		links, err := upstream.ParseLink(tc.in)
		if tc.err != "" {
			if !errors.Is(err, upstream.ErrBadAnswer) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseLink(%.50q) = %v, want an error saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || len(links) != tc.n || upstream.NextLink(links) != tc.next {
			t.Errorf("ParseLink(%.50q) = %+v, %v; want %d links, next %q", tc.in, links, err, tc.n, tc.next)
		}
	}
}

func TestRateLimitWait(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		h         map[string]string
		wait      time.Duration
		ok, spent bool
	}{
		{map[string]string{"Retry-After": "120"}, 2 * time.Minute, true, true},
		{map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second, true, true},
		{map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true, true},
		{map[string]string{"Retry-After": "99999999999999999999"}, time.Duration(1<<63 - 1).Truncate(time.Second), true, true},
		{map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1772366460"}, time.Minute, true, true},
		{map[string]string{"X-RateLimit-Remaining": "12", "X-RateLimit-Reset": "30"}, 30 * time.Second, true, false},
		{map[string]string{"RateLimit": `"default";r=0;t=45`, "RateLimit-Policy": `"default";q=100;w=60`}, 45 * time.Second, true, true},
		{map[string]string{"RateLimit": `limit=100, remaining=0, reset=7`}, 7 * time.Second, true, true},
		{map[string]string{"RateLimit-Remaining": "0", "RateLimit-Reset": "9"}, 9 * time.Second, true, true},
		{map[string]string{"RateLimit": `"a";r=5;t=3`}, 3 * time.Second, true, false},
		{map[string]string{"Retry-After": "soon"}, 0, false, true},
		{nil, 0, false, false},
	} {
		h := http.Header{}
		for k, v := range tc.h {
			h.Set(k, v)
		}
		wait, ok := upstream.RateLimitWait(h, now)
		if wait != tc.wait || ok != tc.ok || upstream.RateLimitExhausted(h) != tc.spent {
			t.Errorf("%v: wait %v %v exhausted %v; want %v %v %v", tc.h, wait, ok, upstream.RateLimitExhausted(h), tc.wait, tc.ok, tc.spent)
		}
	}
}

func FuzzParseLink(f *testing.F) {
	for _, s := range []string{`<https://a.example/2>; rel="next", <https://a.example/9>; rel="last"`, `<a>;rel=next`, `<x>; t="a\"b"; rel="next prev"`, `<`, `,,`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		links, err := upstream.ParseLink(s)
		if err != nil {
			if !errors.Is(err, upstream.ErrBadAnswer) || links != nil {
				t.Fatalf("error %v with links %v", err, links)
			}
			return
		}
		for _, l := range links {
			if strings.ContainsAny(l.URL, "<>\"") {
				t.Fatalf("URL %q holds a delimiter", l.URL)
			}
			if slices.ContainsFunc(l.Rel, func(r string) bool { return r == "" || r != strings.ToLower(r) }) {
				t.Fatalf("rel %q", l.Rel)
			}
		}
		if n := upstream.NextLink(links); n != "" && !strings.Contains(s, n) {
			t.Fatalf("next %q is not in the header", n)
		}
	})
}

func FuzzRateLimitHeaders(f *testing.F) {
	f.Add("120", "0", "1772366460", `"default";r=0;t=45`, "9")
	f.Add("Wed, 21 Oct 2015 07:28:00 GMT", "", "", `limit=1, remaining=0, reset=7`, "")
	f.Add("-1", "x", "-5", `;;,=,t=`, "99999999999999999999")
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, retryAfter, remaining, reset, ietf, ietfReset string) {
		h := http.Header{}
		for k, v := range map[string]string{"Retry-After": retryAfter, "X-RateLimit-Remaining": remaining, "X-RateLimit-Reset": reset, "RateLimit": ietf, "RateLimit-Reset": ietfReset} {
			if v != "" {
				h.Set(k, v)
			}
		}
		wait, ok := upstream.RateLimitWait(h, now)
		if wait < 0 || (!ok && wait != 0) {
			t.Fatalf("wait %v ok %v", wait, ok)
		}
		_ = upstream.RateLimitExhausted(h)
	})
}
