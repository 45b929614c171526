package conformance_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/conformance"
)

// manyTypes is an app of n types (t0, t1, ...) with one item each. Every
// request to the path hang blocks until its client gives up; hung is closed
// at the first one. requested collects the types asked for in schema and
// data requests.
type manyTypes struct {
	n         int
	hang      string
	hung      chan struct{}
	tryLater  bool // answer a delta page 503 tryLater (Retry-After: 10) instead of blocking
	once      sync.Once
	mu        sync.Mutex
	requested map[string]bool
}

func newManyTypes(n int, hang string) *manyTypes {
	return &manyTypes{n: n, hang: hang, hung: make(chan struct{}), requested: map[string]bool{}}
}

func (m *manyTypes) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Types              []string `json:"types"`
		RequestedType      string   `json:"requestedType"`
		LastSynchronizedAt *string  `json:"lastSynchronizedAt"`
	}
	_ = json.NewDecoder(r.Body).Decode(&in)
	if r.URL.Path == m.hang && (!m.tryLater || in.LastSynchronizedAt != nil) {
		if m.tryLater {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "10")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"message": "later", "tryLater": true}`))
			return
		}
		m.once.Do(func() { close(m.hung) })
		<-r.Context().Done()
		return
	}
	reply := func(v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	switch r.URL.Path {
	case "/":
		reply(map[string]any{"name": "Many", "version": "1", "description": "d", "website": "https://example.com",
			"authentication": []any{map[string]any{"id": "none", "name": "None"}}, "sources": []any{},
			"responsibleFor": map[string]any{"dataSynchronization": true}})
	case "/validate":
		reply(map[string]any{"name": "anyone"})
	case "/api/v1/synchronizer/config":
		types := make([]any, m.n)
		for i := range types {
			types[i] = map[string]any{"id": fmt.Sprintf("t%d", i), "name": fmt.Sprintf("Type %d", i)}
		}
		reply(map[string]any{"types": types})
	case "/api/v1/synchronizer/schema":
		out := map[string]any{}
		m.mu.Lock()
		for _, t := range in.Types {
			m.requested[t] = true
			out[t] = map[string]any{"id": map[string]any{"name": "ID", "type": "id"}, "name": map[string]any{"name": "Name", "type": "text"}}
		}
		m.mu.Unlock()
		reply(out)
	case "/api/v1/synchronizer/data":
		m.mu.Lock()
		m.requested[in.RequestedType] = true
		m.mu.Unlock()
		reply(map[string]any{"items": []any{map[string]any{"id": "1", "name": "one"}}, "synchronizationType": "full"})
	default:
		http.NotFound(w, r)
	}
}

// A run whose context is cancelled stops at once and returns the results
// recorded until then, saying why; the request the cancellation cut counts
// against nothing, and what it would have checked has no result at all (a
// skip "no answer" would be a lie).
func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		hang         string
		tryLater     bool
		want, absent []string // ids with and without results
	}{
		{"/api/v1/synchronizer/data", false, []string{conformance.CheckDescriptorAnswer, conformance.CheckSchemaTypes, conformance.CheckNoAnswer},
			[]string{conformance.CheckPageShape, conformance.CheckIDsUnique, conformance.CheckMalformedBody}},
		// Stopped while waiting to retry the first type's delta page.
		{"/api/v1/synchronizer/data", true, []string{conformance.CheckDescriptorAnswer, conformance.CheckSchemaTypes, conformance.CheckNoAnswer},
			[]string{conformance.CheckPageShape, conformance.CheckDelta, conformance.CheckMalformedBody}},
		{"/validate", false, []string{conformance.CheckDescriptorAnswer, conformance.CheckNoAnswer},
			[]string{conformance.CheckValidateAccount, conformance.CheckRejectUnknownID, conformance.CheckConfig}},
	} {
		t.Run(fmt.Sprintf("%s,tryLater=%t", path.Base(tc.hang), tc.tryLater), func(t *testing.T) {
			t.Parallel()
			app := newManyTypes(3, tc.hang)
			app.tryLater = tc.tryLater
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				<-app.hung
				cancel()
			}()
			cfg := conformance.Config{Handler: app, Timeout: time.Hour}
			if tc.tryLater {
				// hung closes once the run has read the whole 503 answer:
				// the run is then on its way to wait for the retry.
				cfg.Client = &http.Client{Transport: onErrorRead{http.DefaultTransport, func() { app.once.Do(func() { close(app.hung) }) }}}
			}
			rep, err := runWithin(t, ctx, cfg, 2*time.Minute)
			if !errors.Is(err, conformance.ErrStopped) || !errors.Is(err, context.Canceled) {
				t.Fatalf("Run = %v, want ErrStopped and context.Canceled", err)
			}
			if !strings.Contains(rep.Stopped, "interrupted") {
				t.Errorf("Stopped = %q", rep.Stopped)
			}
			if rep.Failed > 0 {
				t.Errorf("the interruption failed checks: %v", rep.FailedIDs())
			}
			seen := map[string]bool{}
			for _, r := range rep.Results {
				seen[r.ID] = true
				if r.Status == conformance.Skipped && strings.Contains(r.Why, "no answer") {
					t.Errorf("skipped for the cut request: %s: %s", r.Name(), r.Why)
				}
			}
			for _, id := range tc.want {
				if !seen[id] {
					t.Errorf("the partial report lacks %s", id)
				}
			}
			for _, id := range tc.absent {
				if seen[id] {
					t.Errorf("the partial report has a result of %s, which the run did not reach", id)
				}
			}
			var b strings.Builder
			_ = rep.WriteText(&b)
			if !strings.Contains(b.String(), "STOPPED before the end") {
				t.Errorf("the text report does not say the run stopped:\n%s", b.String())
			}
		})
	}
}

// runWithin runs the suite and fails the test, saying what did not happen,
// when the run has not returned within d of its start (the runs here wait
// an hour per request: a cancellation that does not stop the run would
// otherwise hang until go test's own timeout).
func runWithin(t *testing.T, ctx context.Context, cfg conformance.Config, d time.Duration) (conformance.Report, error) {
	t.Helper()
	type result struct {
		rep conformance.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := conformance.Run(ctx, cfg)
		done <- result{rep, err}
	}()
	select {
	case r := <-done:
		return r.rep, r.err
	case <-time.After(d):
		t.Fatalf("the run did not stop within %s although its context was cancelled (or its bound passed)", d)
		return conformance.Report{}, nil
	}
}

// Config.TotalTimeout bounds a run that would otherwise wait an hour per
// request.
func TestRunTotalTimeout(t *testing.T) {
	t.Parallel()
	rep, err := runWithin(t, context.Background(), conformance.Config{
		Handler: newManyTypes(3, "/api/v1/synchronizer/data"), Timeout: time.Hour, TotalTimeout: 200 * time.Millisecond,
	}, 2*time.Minute)
	if !errors.Is(err, conformance.ErrStopped) || !errors.Is(err, conformance.ErrTotalTimeout) {
		t.Fatalf("Run = %v, want ErrStopped and ErrTotalTimeout", err)
	}
	if !strings.Contains(rep.Stopped, "200ms") {
		t.Errorf("Stopped = %q, want the bound named", rep.Stopped)
	}
}

// Config.MaxTypes bounds the types whose schema and data a run asks for;
// the others are named in a skipped result. Progress sees every type
// walked and every result.
func TestRunMaxTypes(t *testing.T) {
	t.Parallel()
	app := newManyTypes(10000, "")
	var walked []string
	results := 0
	rep, err := conformance.Run(context.Background(), conformance.Config{Handler: app, MaxTypes: 4,
		Progress: func(p conformance.Progress) {
			switch {
			case p.Result != nil:
				results++
			case p.Type != "":
				walked = append(walked, fmt.Sprintf("%s %d/%d", p.Type, p.Index, p.Types))
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed > 0 {
		t.Errorf("failed: %v", rep.FailedIDs())
	}
	asked := 0
	for typ := range app.requested {
		if strings.HasPrefix(typ, "t") {
			asked++
		}
	}
	if asked != 4 {
		t.Errorf("the app was asked for %d of its types, want 4", asked)
	}
	if want := []string{"t0 1/4", "t1 2/4", "t2 3/4", "t3 4/4"}; fmt.Sprint(walked) != fmt.Sprint(want) {
		t.Errorf("progress walked %v, want %v", walked, want)
	}
	if results != len(rep.Results) {
		t.Errorf("progress saw %d results of %d", results, len(rep.Results))
	}
	bounded := false
	for _, r := range rep.Results {
		if r.ID == conformance.CheckPageShape && r.Status == conformance.Skipped && r.Subject == "9996 more types" {
			bounded = true
		}
	}
	if !bounded {
		t.Errorf("no skipped result names the 9996 types beyond the bound")
	}
}

// onErrorRead calls done when the body of a 503 answer is closed.
type onErrorRead struct {
	http.RoundTripper
	done func()
}

func (o onErrorRead) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := o.RoundTripper.RoundTrip(req)
	if err == nil && resp.StatusCode == http.StatusServiceUnavailable {
		resp.Body = closeHook{resp.Body, o.done}
	}
	return resp, err
}

type closeHook struct {
	io.ReadCloser
	done func()
}

func (c closeHook) Close() error {
	err := c.ReadCloser.Close()
	c.done()
	return err
}
