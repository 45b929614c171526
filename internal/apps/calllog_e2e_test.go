package apps

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/appkit/upstream"
	"github.com/appkitgo/appkit/internal/calllog"
)

// The secrets of the end-to-end tests: the account's token (which the
// handler also puts in a query and a body), a password and a token that
// the handler and the upstream put in JSON fields.
const (
	e2eToken    = "account-token-5e3d"
	e2ePassword = "hunter2-password"
	e2eRefresh  = "upstream-refresh-99"
)

// syncedThing is the item type of the end-to-end app.
type syncedThing struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// e2eApp serves an appkit app whose data handler calls an upstream
// through appkit/upstream: type "things" makes two calls (a GET with the
// token in its query, a POST with secrets in its JSON body), type "many"
// makes calllog.MaxCalls+7. It returns the app's address and its log.
func e2eApp(t *testing.T) (string, *syncBuffer) {
	t.Helper()
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"items":[{"id":"1","name":"one"}],"refresh_token":%q}`, e2eRefresh)
	}))
	t.Cleanup(api.Close)
	client := &upstream.Client{BaseURL: api.URL, Auth: upstream.Bearer("token"), HTTPClient: api.Client()}
	type answer struct {
		Items []syncedThing `json:"items"`
	}
	var log syncBuffer
	logger := zerolog.New(&log)
	app := &appkit.App{ID: "e2e", Name: "E2E", Version: "1.0.0", Logger: &logger,
		Auth: []appkit.Auth{appkit.TokenAuth("Token", "The API token", func(context.Context, string) (string, error) { return "e2e", nil })},
		Sync: &appkit.Sync{Types: []appkit.Type{
			{ID: "things", Name: "Things", Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]syncedThing, error) {
				s := client.For(req.Account)
				tok := req.Account.String("token")
				if _, err := upstream.Get[answer](ctx, s, "/things", url.Values{"access_token": {tok}, "q": {"open"}, "signature": {"sig-value-777"}}); err != nil {
					return nil, err
				}
				a, err := upstream.Send[map[string]string, answer](ctx, s, http.MethodPost, "/search",
					map[string]string{"password": e2ePassword, "note": "with " + tok, "filter": "open"})
				return a.Items, err
			})},
			{ID: "many", Name: "Many", Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]syncedThing, error) {
				s := client.For(req.Account)
				for i := range calllog.MaxCalls + 7 {
					if _, err := upstream.Get[answer](ctx, s, fmt.Sprintf("/page/%d", i), nil); err != nil {
						return nil, err
					}
				}
				return nil, nil
			})},
		}}}
	h, err := app.Handler()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL, &log
}

// syncBuffer is a log written by the app's handlers and read by the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// loggedRequestIDs are the request ids of the app's request lines.
func (b *syncBuffer) loggedRequestIDs(t *testing.T) []string {
	t.Helper()
	var ids []string
	for line := range strings.SplitSeq(strings.TrimSpace(b.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%v: %s", err, line)
		}
		if m["message"] == "request" {
			ids = append(ids, fmt.Sprint(m[appkit.LogKeyRequestID]))
		}
	}
	return ids
}

// postData posts a data request for typ through hc and reads the answer
// to its end (the recorder keeps the exchange then).
func postData(t *testing.T, hc *http.Client, base, typ string, header http.Header) {
	t.Helper()
	body := fmt.Sprintf(`{"requestedType":%q,"types":[%q],"filter":{},"account":{"token":%q},"pagination":null}`, typ, typ, e2eToken)
	req, err := http.NewRequest(http.MethodPost, base+protocol.PathData, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if req.Header.Get(calllog.RequestHeader) != "" || req.Header.Get("X-Request-Id") != header.Get("X-Request-Id") {
		t.Fatal("the recorder changed the caller's request")
	}
}

// shows reports the secrets that text shows.
func shows(text string) []string {
	var out []string
	for _, s := range []string{e2eToken, url.QueryEscape(e2eToken), e2ePassword, e2eRefresh, "sig-value-777"} {
		if strings.Contains(text, s) {
			out = append(out, s)
		}
	}
	return out
}

// An appkit app's upstream calls reach the exchange they were made for,
// with the request id the app logged, masked by the app (the host's masker
// knows no secret here), bodies only when asked, and the calls beyond the
// bound counted.
func TestUpstreamCallsInExchanges(t *testing.T) {
	t.Parallel()
	base, log := e2eApp(t)
	for _, tc := range []struct {
		name   string
		bodies bool
	}{
		{"calls", false},
		{"bodies asked by the recorder", true},
	} {
		rec, hc := newRecorder(http.DefaultClient, newMasker(nil, nil), tc.bodies)
		postData(t, hc, base, "things", nil)
		ex, _ := rec.exchanges()
		if len(ex) != 1 {
			t.Fatalf("%s: %d exchanges", tc.name, len(ex))
		}
		e := ex[0]
		if e.RequestID == "" || !slices.Contains(log.loggedRequestIDs(t), e.RequestID) {
			t.Errorf("%s: request id %q is not among those the app logged: %v", tc.name, e.RequestID, log.loggedRequestIDs(t))
		}
		if len(e.Upstream) != 2 || e.UpstreamDropped != 0 {
			t.Fatalf("%s: upstream %+v, dropped %d", tc.name, e.Upstream, e.UpstreamDropped)
		}
		get, post := e.Upstream[0], e.Upstream[1]
		if get.Method != http.MethodGet || !strings.HasSuffix(get.URL, "/things?access_token=***&q=open&signature=***") || get.Status != 200 || get.Bytes == 0 {
			t.Errorf("%s: the GET is %+v", tc.name, get)
		}
		if post.Method != http.MethodPost || !strings.HasSuffix(post.URL, "/search") || post.Status != 200 {
			t.Errorf("%s: the POST is %+v", tc.name, post)
		}
		wantBodies := tc.name != "calls"
		if (post.Request != "") != wantBodies || (post.Response != "") != wantBodies || (get.Response != "") != wantBodies {
			t.Errorf("%s: bodies %q / %q, want them %v", tc.name, post.Request, post.Response, wantBodies)
		}
		if wantBodies && (!strings.Contains(post.Request, `"filter":"open"`) || !strings.Contains(post.Response, `"name":"one"`)) {
			t.Errorf("%s: bodies %q / %q", tc.name, post.Request, post.Response)
		}
		b, _ := json.Marshal(e)
		if s := shows(string(b)); len(s) > 0 {
			t.Errorf("%s: the exchange shows %v: %s", tc.name, s, b)
		}
	}

	// Beyond the bound: with bodies, MaxCalls calls are kept; without, as
	// many as a report of calllog.MaxHeaderCalls bytes holds; the others
	// are counted.
	for _, bodies := range []bool{true, false} {
		rec, hc := newRecorder(http.DefaultClient, newMasker(nil, nil), bodies)
		id := fmt.Sprintf("caller-id-%v", bodies)
		postData(t, hc, base, "many", http.Header{"X-Request-Id": {id}})
		ex, _ := rec.exchanges()
		if len(ex) != 1 || ex[0].RequestID != id || !slices.Contains(log.loggedRequestIDs(t), id) {
			t.Fatalf("the caller's request id was not kept: %+v", ex)
		}
		kept, dropped := len(ex[0].Upstream), ex[0].UpstreamDropped
		if kept+dropped != calllog.MaxCalls+7 || bodies && kept != calllog.MaxCalls || !bodies && (kept < 20 || kept >= calllog.MaxCalls) {
			t.Fatalf("bodies %v: %d calls kept, %d dropped", bodies, kept, dropped)
		}
	}
}

// What an app reports is hostile: whatever is wrong with it, nothing of it
// is kept and the exchange is recorded as without it; what is kept is
// masked again by the host, and bodies it did not ask for are left out.
func TestHostileUpstreamReports(t *testing.T) {
	t.Parallel()
	valid := func(mod func(*calllog.Call)) string {
		c := calllog.New(true)
		call := calllog.Call{Method: "GET", URL: "https://api.example/x", Status: 200, DurationMS: 4, Bytes: 10,
			Request: `{"q":1}`, Response: `{"ok":true}`}
		mod(&call)
		c.Add(call)
		return c.Header()
	}
	many := calllog.New(true)
	for range calllog.MaxCalls {
		many.Add(calllog.Call{Method: "GET", URL: "https://api.example/x"})
	}
	tooMany := strings.Replace(many.Header(), `"calls":[`, `"calls":[{"method":"GET","url":"u","durationMs":1},`, 1)
	for _, tc := range []struct {
		name   string
		values []string
	}{
		{"huge", []string{`{"calls":[{"method":"GET","url":"u","durationMs":1}],"dropped":0` + strings.Repeat(" ", calllog.MaxHeaderRead) + `}`}},
		{"malformed", []string{`{"calls":[{"method":"GET"`}},
		{"not JSON", []string{`calls`}},
		{"unknown field", []string{`{"calls":[],"dropped":1,"extra":true}`}},
		{"too many calls", []string{tooMany}},
		{"negative status", []string{`{"calls":[{"method":"GET","url":"u","status":-2,"durationMs":1}]}`}},
		{"bad method", []string{`{"calls":[{"method":"G T","url":"u","durationMs":1}]}`}},
		{"long URL", []string{`{"calls":[{"method":"GET","url":"` + strings.Repeat("u", calllog.MaxURL+1) + `","durationMs":1}]}`}},
		{"two values", []string{valid(func(*calllog.Call) {}), valid(func(*calllog.Call) {})}},
	} {
		app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			for _, v := range tc.values {
				w.Header().Add(calllog.AnswerHeader, v)
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"items":[]}`)
		}))
		rec, hc := newRecorder(app.Client(), newMasker(nil, nil), false)
		postData(t, hc, app.URL, "things", nil)
		app.Close()
		ex, _ := rec.exchanges()
		if len(ex) != 1 {
			t.Fatalf("%s: %d exchanges", tc.name, len(ex))
		}
		e := ex[0]
		if e.Upstream != nil || e.UpstreamDropped != 0 {
			t.Errorf("%s: kept %d calls, %d dropped", tc.name, len(e.Upstream), e.UpstreamDropped)
		}
		if e.Status != 200 || e.Response != `{"items":[]}` || e.Error != "" || e.RequestID == "" || e.Request == "" {
			t.Errorf("%s: the exchange is not intact: %+v", tc.name, e)
		}
	}

	// A valid report that shows the account's secret: masked by the host;
	// its bodies left out unless asked.
	leaky := valid(func(c *calllog.Call) {
		c.URL = "https://api.example/x?key=" + e2eToken
		c.Error = "failed with " + e2eToken
		c.Request = `{"token":"fresh-token-abc","note":"` + e2eToken + `"}`
	})
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set(calllog.AnswerHeader, leaky)
		io.WriteString(w, `{"items":[]}`)
	}))
	defer app.Close()
	for _, bodies := range []bool{false, true} {
		rec, hc := newRecorder(app.Client(), newMasker(map[string]any{"token": e2eToken}, nil), bodies)
		postData(t, hc, app.URL, "things", nil)
		ex, _ := rec.exchanges()
		if len(ex) != 1 || len(ex[0].Upstream) != 1 {
			t.Fatalf("bodies %v: %+v", bodies, ex)
		}
		u := ex[0].Upstream[0]
		b, _ := json.Marshal(u)
		if strings.Contains(string(b), e2eToken) || strings.Contains(string(b), "fresh-token-abc") {
			t.Errorf("bodies %v: a secret is kept: %s", bodies, b)
		}
		if u.URL != "https://api.example/x?key=***" || (u.Request != "") != bodies || (u.Response != "") != bodies {
			t.Errorf("bodies %v: kept %s", bodies, b)
		}
	}
}
