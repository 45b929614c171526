package upstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/upstream"
	"github.com/appkitgo/appkit/internal/testkit"
)

const secret = "s3cr3t-token-value"

var acct = appkit.Account{"token": secret}

// serve starts an upstream and a client of it.
func serve(t *testing.T, h http.HandlerFunc) (*upstream.Client, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &upstream.Client{BaseURL: srv.URL + "/api", Auth: upstream.Bearer("token"), HTTPClient: srv.Client()}, srv
}

// appErr returns the *appkit.Error of err.
func appErr(t *testing.T, err error) *appkit.Error {
	t.Helper()
	var ae *appkit.Error
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v (%T), want an *appkit.Error", err, err)
	}
	return ae
}

func TestAuth(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		auth upstream.Auth
		acct appkit.Account
		want func(r *http.Request) bool
	}{
		{"bearer", upstream.Bearer("token"), acct, func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer "+secret }},
		{"token scheme", upstream.TokenHeader("Authorization", "token", "token"), acct, func(r *http.Request) bool { return r.Header.Get("Authorization") == "token "+secret }},
		{"custom header", upstream.TokenHeader("x-api-key", "", "token"), acct, func(r *http.Request) bool {
			return r.Header.Get("X-Api-Key") == secret && r.Header.Get("Authorization") == ""
		}},
		{"basic", upstream.Basic("user", "password"), appkit.Account{"user": "ann", "password": secret}, func(r *http.Request) bool {
			u, p, ok := r.BasicAuth()
			return ok && u == "ann" && p == secret
		}},
		{"query key", upstream.QueryKey("api_key", "token"), acct, func(r *http.Request) bool {
			return r.URL.Query().Get("api_key") == secret && r.URL.Query().Get("q") == "x"
		}},
		{"bearer from a handle", upstream.BearerFrom(appkit.TokenAuthToken), acct, func(r *http.Request) bool { return r.Header.Get("Authorization") == "Bearer "+secret }},
		{"token header from a handle", upstream.TokenHeaderFrom("x-api-key", "", appkit.SecretAccountField("key", "Key", "")), appkit.Account{"key": secret}, func(r *http.Request) bool {
			return r.Header.Get("X-Api-Key") == secret
		}},
		{"basic from handles", upstream.BasicFrom(appkit.BasicAuthUsername, appkit.BasicAuthPassword), appkit.Account{"username": "ann", "password": secret}, func(r *http.Request) bool {
			u, p, ok := r.BasicAuth()
			return ok && u == "ann" && p == secret
		}},
		{"query key from a handle", upstream.QueryKeyFrom("api_key", appkit.TokenAuthToken), acct, func(r *http.Request) bool {
			return r.URL.Query().Get("api_key") == secret && r.URL.Query().Get("q") == "x"
		}},
		{"by auth id", upstream.ByAuth(map[string]upstream.Auth{"token": upstream.Bearer("token"), "basic": upstream.Basic("user", "password")}),
			appkit.Account{"auth": "basic", "user": "ann", "password": secret}, func(r *http.Request) bool { _, p, _ := r.BasicAuth(); return p == secret }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
				if !tc.want(r) || r.URL.Path != "/api/me" {
					w.WriteHeader(401)
					return
				}
				fmt.Fprint(w, `{"login":"ann"}`)
			})
			c.Auth = tc.auth
			me, err := upstream.Get[struct{ Login string }](t.Context(), c.For(tc.acct), "/me?q=x", nil)
			if err != nil || me.Login != "ann" {
				t.Fatalf("me = %+v, %v", me, err)
			}
		})
	}
	t.Run("by auth without an auth id", func(t *testing.T) {
		t.Parallel()
		c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
			if u, p, ok := r.BasicAuth(); !ok || u != "ann" || p != secret {
				w.WriteHeader(401)
				return
			}
			fmt.Fprint(w, `{}`)
		})
		c.Auth = upstream.ByAuth(map[string]upstream.Auth{"a-token": upstream.Bearer("token"), "basic": upstream.Basic("user", "password")})
		if _, err := upstream.Get[any](t.Context(), c.For(appkit.Account{"user": "ann", "password": secret}), "/me", nil); err != nil {
			t.Fatalf("the basic credentials were not picked: %v", err)
		}
		if _, err := upstream.Get[any](t.Context(), c.For(appkit.Account{"other": "x"}), "/me", nil); !errors.Is(err, upstream.ErrUnauthorized) {
			t.Fatalf("no credentials: %v", err)
		}
	})
	t.Run("missing credential", func(t *testing.T) {
		t.Parallel()
		c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { t.Error("called without a credential") })
		_, err := upstream.Get[any](t.Context(), c.For(appkit.Account{}), "/me", nil)
		if ae := appErr(t, err); ae.Status != 401 || !errors.Is(err, upstream.ErrUnauthorized) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestSendTypedJSON(t *testing.T) {
	t.Parallel()
	type note struct{ Text string }
	type created struct{ ID int }
	c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		var n note
		if r.Method != "POST" || r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&n) != nil || n.Text != "hi" {
			w.WriteHeader(400)
			return
		}
		w.WriteHeader(201)
		fmt.Fprint(w, `{"id":7}`)
	})
	out, err := upstream.Send[note, created](t.Context(), c.For(acct), "POST", "/notes", note{"hi"})
	if err != nil || out.ID != 7 {
		t.Fatalf("out = %+v, %v", out, err)
	}
}

// TestErrorMapping: every upstream failure comes mapped onto what the
// service must get, with the secret masked.
func TestErrorMapping(t *testing.T) {
	t.Parallel()
	year := time.Now().Add(365 * 24 * time.Hour).UTC().Format(http.TimeFormat)
	for _, tc := range []struct {
		name     string
		status   int
		header   map[string]string
		body     string
		appkit   int // the status the service gets
		tryLater bool
		wait     time.Duration
		is       error
		msg      string
	}{
		{"401", 401, nil, `{"message":"Bad credentials for ` + secret + `"}`, 401, false, 0, upstream.ErrUnauthorized, "Bad credentials for ***"},
		{"403 refusal", 403, map[string]string{"X-RateLimit-Remaining": "4999"}, `{"message":"Resource not accessible"}`, 401, false, 0, upstream.ErrUnauthorized, "not accessible"},
		{"403 rate limit", 403, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": fmt.Sprint(time.Now().Add(90 * time.Second).Unix())}, `{}`, 503, true, 90 * time.Second, upstream.ErrRateLimited, "403"},
		{"429 retry-after", 429, map[string]string{"Retry-After": "30"}, ``, 503, true, 30 * time.Second, upstream.ErrRateLimited, "429"},
		{"429 retry-after of a year", 429, map[string]string{"Retry-After": year}, ``, 503, true, upstream.DefaultMaxWait, upstream.ErrRateLimited, "429"},
		{"429 ietf", 429, map[string]string{"RateLimit": `"default";r=0;t=12`}, ``, 503, true, 12 * time.Second, upstream.ErrRateLimited, "429"},
		{"429 silent", 429, nil, ``, 503, true, upstream.DefaultRateLimitWait, upstream.ErrRateLimited, "429"},
		{"404", 404, nil, `<html>not here</html>`, 500, false, 0, upstream.ErrNotFound, "GET 127.0.0.1"},
		{"422", 422, nil, `{"message":"Validation Failed"}`, 500, false, 0, nil, "Validation Failed"},
		{"500", 500, nil, `oops`, 503, true, 0, upstream.ErrUnavailable, "500"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var calls atomic.Int32
			c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				for k, v := range tc.header {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tc.status)
				fmt.Fprint(w, tc.body)
			})
			c.Retries = -1
			_, err := upstream.Get[any](t.Context(), c.For(acct), "/repos/a/b?key="+secret, nil)
			if err == nil {
				t.Fatal("no error")
			}
			var ae *appkit.Error
			status := 500
			if errors.As(err, &ae) {
				status = ae.Status
				wait := ae.RetryAfter
				if tc.wait == 90*time.Second && wait >= 80*time.Second && wait <= 90*time.Second {
					wait = tc.wait // a reset time: whole seconds, measured a moment later
				}
				if ae.TryLater != tc.tryLater || wait != tc.wait {
					t.Errorf("tryLater %v after %v, want %v after %v", ae.TryLater, ae.RetryAfter, tc.tryLater, tc.wait)
				}
			}
			if status != tc.appkit {
				t.Errorf("status %d, want %d (%v)", status, tc.appkit, err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("err %v is not %v", err, tc.is)
			}
			var se *upstream.StatusError
			if !errors.As(err, &se) || se.Status != tc.status {
				t.Errorf("no StatusError %d in %v", tc.status, err)
			}
			if msg := err.Error(); strings.Contains(msg, secret) || !strings.Contains(msg, tc.msg) || !strings.Contains(msg, "/api/repos/a/b") || strings.Contains(msg, "<html") {
				t.Errorf("message %q: want %q, the path, no secret, no HTML", msg, tc.msg)
			}
			if calls.Load() != 1 {
				t.Errorf("%d calls", calls.Load())
			}
		})
	}
}

func TestRetries(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var calls atomic.Int32
		fail := atomic.Int32{}
		fail.Store(2)
		c := memClient(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			if fail.Add(-1) >= 0 {
				w.WriteHeader(502)
				return
			}
			fmt.Fprint(w, `[1,2]`)
		})
		got, err := upstream.Get[[]int](t.Context(), c.For(acct), "/n", nil)
		if err != nil || len(got) != 2 || calls.Load() != 3 {
			t.Fatalf("got %v, %v after %d calls; want success on the third", got, err, calls.Load())
		}
		// A POST is not retried, unless marked idempotent.
		calls.Store(0)
		fail.Store(5)
		_, err = upstream.Send[any, any](t.Context(), c.For(acct), "POST", "/n", 1)
		if !errors.Is(err, upstream.ErrUnavailable) || calls.Load() != 1 {
			t.Fatalf("POST: %v after %d calls", err, calls.Load())
		}
		calls.Store(0)
		fail.Store(1)
		if _, err := c.For(acct).Do(t.Context(), upstream.Request{Method: "POST", Path: "/n", Idempotent: true}, nil); err != nil || calls.Load() != 2 {
			t.Fatalf("idempotent POST: %v after %d calls", err, calls.Load())
		}
		// Retries run out: tryLater.
		calls.Store(0)
		fail.Store(5)
		_, err = upstream.Get[any](t.Context(), c.For(acct), "/n", nil)
		if ae := appErr(t, err); !ae.TryLater || calls.Load() != 3 {
			t.Fatalf("after the retries: %v, %d calls", err, calls.Load())
		}
	})
}

func TestBadAnswers(t *testing.T) {
	t.Parallel()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the other host was called (Authorization %q)", r.Header.Get("Authorization"))
	}))
	t.Cleanup(other.Close)
	c, srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/html":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html>maintenance</html>")
		case "/api/big":
			fmt.Fprintf(w, `"%s"`, strings.Repeat("x", 2000))
		case "/api/away":
			http.Redirect(w, r, other.URL+"/steal", http.StatusFound)
		case "/api/moved":
			http.Redirect(w, r, "/api/here", http.StatusMovedPermanently)
		case "/api/here":
			if r.Header.Get("Authorization") != "Bearer "+secret {
				w.WriteHeader(401)
				return
			}
			fmt.Fprint(w, `{"ok":true}`)
		}
	})
	c.MaxBody = 1000
	s := c.For(acct)
	ctx := t.Context()

	out := map[string]any{"kept": true}
	_, err := s.Do(ctx, upstream.Request{Path: "/html"}, &out)
	if !errors.Is(err, upstream.ErrBadAnswer) || !strings.Contains(err.Error(), "not the expected JSON (Content-Type text/html") || out["kept"] != true || len(out) != 1 {
		t.Errorf("html: %v, out %v", err, out)
	}
	if _, err := upstream.Get[string](ctx, s, "/big", nil); !errors.Is(err, upstream.ErrBadAnswer) || !strings.Contains(err.Error(), "larger than 1000 bytes") {
		t.Errorf("big: %v", err)
	}
	if _, err := upstream.Get[any](ctx, s, "/away", nil); !errors.Is(err, upstream.ErrRedirect) || strings.Contains(err.Error(), secret) {
		t.Errorf("redirect away: %v", err)
	}
	if got, err := upstream.Get[map[string]bool](ctx, s, "/moved", nil); err != nil || !got["ok"] {
		t.Errorf("same-origin redirect: %v %v", got, err)
	}
	if _, err := upstream.Get[any](ctx, s, other.URL+"/x", nil); !errors.Is(err, upstream.ErrRedirect) {
		t.Errorf("absolute URL of another origin: %v", err)
	}
	if _, err := upstream.Get[any](ctx, s, srv.URL+"/api/here", nil); err != nil {
		t.Errorf("absolute URL of the origin: %v", err)
	}
	bad := &upstream.Client{BaseURL: "desk.example"}
	if _, err := upstream.Get[any](ctx, bad.For(acct), "/x", nil); err == nil || bad.Check() == nil {
		t.Errorf("relative BaseURL accepted: %v", err)
	}
}

func TestUnreachable(t *testing.T) {
	t.Parallel()
	c, srv := serve(t, func(w http.ResponseWriter, r *http.Request) {})
	srv.Close()
	c.Retries = -1
	_, err := upstream.Get[any](t.Context(), c.For(acct), "/x", nil)
	if ae := appErr(t, err); !ae.TryLater || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("err = %v", err)
	}
}

func TestDebugLog(t *testing.T) {
	t.Parallel()
	var buf testkit.Buffer
	log := zerolog.New(&buf).Level(zerolog.DebugLevel)
	c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(404) })
	c.Auth = upstream.QueryKey("key", "token")
	c.Logger = &log
	_, _ = upstream.Get[any](t.Context(), c.For(acct), "/items/"+secret, nil)
	logged := buf.String()
	var line map[string]any
	if err := json.Unmarshal([]byte(logged), &line); err != nil {
		t.Fatalf("log %q: %v", logged, err)
	}
	if line["level"] != "debug" || line["method"] != "GET" || line["path"] != "/api/items/***" || line["status"] != 404.0 || line["duration"] == nil || !strings.HasPrefix(line["host"].(string), "127.0.0.1:") {
		t.Errorf("log line %v", line)
	}
	if strings.Contains(logged, secret) || strings.Contains(logged, "key=") {
		t.Errorf("the log shows the secret: %s", logged)
	}
}

// TestCancellation: a cancelled handler request stops the call.
func TestCancellation(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-r.Context().Done()
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() { <-started; cancel() }()
	_, err := upstream.Get[any](ctx, c.For(acct), "/slow", nil)
	if ae := appErr(t, err); !ae.TryLater || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestDecodeIntoNonPointer(t *testing.T) {
	t.Parallel()
	c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) })
	var m map[string]any
	if _, err := c.For(acct).Do(t.Context(), upstream.Request{Path: "/"}, m); err == nil {
		t.Fatal("decoding into a non-pointer succeeded")
	}
}

// TestErrorBodyBounded: an error answer's text is cut short; an HTML page
// is left out.
func TestErrorBodyBounded(t *testing.T) {
	t.Parallel()
	c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(422)
		fmt.Fprintf(w, `{"message":%q}`, strings.Repeat("long ", 2000))
	})
	_, err := upstream.Get[any](t.Context(), c.For(acct), "/x", nil)
	if err == nil || len(err.Error()) > 700 || !strings.HasSuffix(err.Error(), "...") {
		t.Fatalf("error of %d bytes: %.100s", len(err.Error()), err)
	}
}
