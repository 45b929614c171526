package syncer

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestRetryDelayBounds(t *testing.T) {
	t.Parallel()
	r := Retry{Attempts: 10, Base: 100 * time.Millisecond, Max: time.Second}
	for _, tc := range []struct {
		attempt int
		lo, hi  time.Duration
	}{
		{1, 50 * time.Millisecond, 100 * time.Millisecond},
		{2, 100 * time.Millisecond, 200 * time.Millisecond},
		{4, 400 * time.Millisecond, 800 * time.Millisecond},
		{5, 500 * time.Millisecond, time.Second},  // capped
		{60, 500 * time.Millisecond, time.Second}, // no overflow
	} {
		for range 200 {
			if d := r.delay(tc.attempt); d < tc.lo || d > tc.hi {
				t.Fatalf("delay(%d) = %s, want within [%s, %s]", tc.attempt, d, tc.lo, tc.hi)
			}
		}
	}
}

// The client retries what may pass (tryLater, 429, 5xx, timeouts) up to
// the bound, honours Retry-After within the policy's Max, and does not
// retry other failures.
func TestClientRetries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		answers   []string // status:body, in order; the last repeats
		retryAft  string
		wantCalls int
		wantErr   string
		wantWaits []time.Duration
	}{
		{"tryLater then ok", []string{`503:{"message":"busy","tryLater":true}`, `200:{}`}, "", 2, "", []time.Duration{-1}},
		{"429 with Retry-After", []string{`429:{"message":"slow down"}`, `200:{}`}, "7", 2, "", []time.Duration{7 * time.Second}},
		{"Retry-After beyond Max", []string{`429:{"message":"slow down"}`, `200:{}`}, "3600", 2, "", []time.Duration{30 * time.Second}},
		{"500 until the bound", []string{`500:{"message":"boom"}`}, "", 3, "boom (after 3 attempts)", []time.Duration{-1, -1}},
		{"400 is not retried", []string{`400:{"message":"bad"}`}, "", 1, "400: bad", nil},
		{"400 with tryLater is retried", []string{`400:{"message":"not yet","tryLater":true}`, `200:{}`}, "", 2, "", []time.Duration{-1}},
		{"409 with tryLater until the bound", []string{`409:{"message":"locked","tryLater":true}`}, "", 3, "locked (after 3 attempts)", []time.Duration{-1, -1}},
		{"401 is not retried", []string{`401:{"message":"who"}`}, "", 1, "401: who", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				a := tc.answers[min(calls, len(tc.answers)-1)]
				calls++
				status, body, _ := strings.Cut(a, ":")
				if tc.retryAft != "" {
					w.Header().Set("Retry-After", tc.retryAft)
				}
				w.Header().Set("Content-Type", "application/json")
				code, _ := strconv.Atoi(status)
				w.WriteHeader(code)
				w.Write([]byte(body))
			}))
			defer srv.Close()
			c, err := newClient(srv.URL, nil, time.Minute, 1<<20, Retry{Attempts: 3, Base: time.Second, Max: 30 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			var waits []time.Duration
			c.sleep = func(ctx context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			var out map[string]any
			err = c.callRetry(context.Background(), http.MethodPost, "/x", map[string]any{}, &out)
			if calls != tc.wantCalls {
				t.Errorf("%d calls, want %d", calls, tc.wantCalls)
			}
			if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
			if len(waits) != len(tc.wantWaits) {
				t.Fatalf("waits %v, want %v", waits, tc.wantWaits)
			}
			for i, w := range tc.wantWaits {
				if w >= 0 && waits[i] != w {
					t.Errorf("wait %d = %s, want %s", i, waits[i], w)
				}
			}
		})
	}
}

// Answers over the size limit, of the wrong content type or malformed are
// errors naming the endpoint; no answer in time is a timeout.
func TestClientHostileAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, ct, body string
		hang           bool
		want           string
		timeout        bool
	}{
		{"too large", "application/json", `{"a":"` + strings.Repeat("x", 2000) + `"}`, false, "answer larger than 1024 bytes", false},
		{"html", "text/html", `<html>`, false, "answer is text/html, not JSON", false},
		{"malformed", "application/json; charset=utf-8", `{"a":`, false, "malformed JSON", false},
		{"charset ok", "application/json; charset=UTF-8", `{"a":1}`, false, "", false},
		{"slow", "application/json", `{}`, true, "no answer within 50ms", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.hang {
					// No answer until the client gives up (or a generous bound).
					select {
					case <-r.Context().Done():
					case <-time.After(time.Minute):
					}
					return
				}
				w.Header().Set("Content-Type", tc.ct)
				w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			timeout := time.Minute // only the app that hangs meets the timeout
			if tc.hang {
				timeout = 50 * time.Millisecond
			}
			c, _ := newClient(srv.URL+"/base/", nil, timeout, 1024, Retry{Attempts: 1})
			var out map[string]any
			err := c.call(context.Background(), http.MethodGet, "/x", nil, &out)
			var ae *AppError
			if tc.want == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				return
			}
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "/x") || ae.Timeout != tc.timeout {
				t.Errorf("err = %v (%+v), want %q", err, ae, tc.want)
			}
		})
	}
}
