package upstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/upstream"
	"github.com/appkitgo/appkit/oauth"
)

// desk is a stand-in of an upstream API for the examples.
func desk() *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/me", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer demo-token" {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"message":"bad token"}`)
			return
		}
		fmt.Fprint(w, `{"login":"ann"}`)
	})
	mux.HandleFunc("POST /api/notes", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"id":42}`)
	})
	mux.HandleFunc("GET /api/tickets", func(w http.ResponseWriter, r *http.Request) {
		// two pages linked by the Link header
		if r.URL.Query().Get("page") == "2" {
			fmt.Fprint(w, `[{"id":3,"subject":"Slow page"}]`)
			return
		}
		w.Header().Set("Link", `</api/tickets?page=2>; rel="next"`)
		fmt.Fprint(w, `[{"id":1,"subject":"Cannot log in"},{"id":2,"subject":"Invoice"}]`)
	})
	mux.HandleFunc("GET /api/busy", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(http.StatusTooManyRequests)
	})
	return httptest.NewServer(mux)
}

func ExampleGet() {
	srv := desk()
	defer srv.Close()
	api := &upstream.Client{BaseURL: srv.URL + "/api", Auth: upstream.Bearer("token")}
	account := appkit.Account{"token": "demo-token"} // a request's req.Account

	me, err := upstream.Get[struct{ Login string }](context.Background(), api.For(account), "/me", nil)
	fmt.Println(me.Login, err)

	_, err = upstream.Get[struct{ Login string }](context.Background(), api.For(appkit.Account{"token": "wrong-token"}), "/me", nil)
	var ae *appkit.Error
	fmt.Println(errors.As(err, &ae), ae.Status, errors.Is(err, upstream.ErrUnauthorized))
	// Output:
	// ann <nil>
	// true 401 true
}

func ExampleSend() {
	srv := desk()
	defer srv.Close()
	api := &upstream.Client{BaseURL: srv.URL + "/api", Auth: upstream.Bearer("token")}
	type note struct {
		Text string `json:"text"`
	}
	type created struct {
		ID int `json:"id"`
	}
	out, err := upstream.Send[note, created](context.Background(), api.For(appkit.Account{"token": "demo-token"}), http.MethodPost, "/notes", note{"Called back"})
	fmt.Println(out.ID, err)
	// Output: 42 <nil>
}

func ExampleSession_Do() {
	srv := desk()
	defer srv.Close()
	api := &upstream.Client{BaseURL: srv.URL + "/api", Auth: upstream.Bearer("token")}
	var tickets []struct{ ID int }
	resp, err := api.For(appkit.Account{"token": "demo-token"}).Do(context.Background(), upstream.Request{Path: "/tickets", Query: url.Values{"state": {"open"}}}, &tickets)
	fmt.Println(len(tickets), resp.Status, resp.Header.Get("Link"), err)

	// A rate-limited answer: tryLater, with the upstream's wait.
	_, err = api.For(appkit.Account{"token": "demo-token"}).Do(context.Background(), upstream.Request{Path: "/busy"}, nil)
	var ae *appkit.Error
	errors.As(err, &ae)
	fmt.Println(ae.Status, ae.TryLater, ae.RetryAfter)
	// Output:
	// 2 200 </api/tickets?page=2>; rel="next" <nil>
	// 503 true 2m0s
}

func ExampleClient_For() {
	srv := desk()
	defer srv.Close()
	// Declared once; bound to each request's account.
	api := &upstream.Client{BaseURL: srv.URL + "/api", Auth: upstream.Bearer("token"), RateLimit: 10, Burst: 5}
	handler := func(ctx context.Context, req *appkit.DatalistRequest) ([]appkit.Option, error) {
		me, err := upstream.Get[struct{ Login string }](ctx, api.For(req.Account), "/me", nil)
		if err != nil {
			return nil, err // already mapped: 401, tryLater, ...
		}
		return []appkit.Option{{Title: me.Login, Value: me.Login}}, nil
	}
	opts, err := handler(context.Background(), &appkit.DatalistRequest{Request: appkit.Request{Account: appkit.Account{"token": "demo-token"}}})
	fmt.Println(opts, err)
	// Output: [{ann ann}] <nil>
}

// A type whose items come from one list endpoint: the endpoint, the pager
// and a mapping function.
func ExampleItems() {
	srv := desk()
	defer srv.Close()
	api := &upstream.Client{BaseURL: srv.URL + "/api", Auth: upstream.Bearer("token")}
	type Ticket struct {
		ID   string `appkit:"id"`
		Name string `appkit:"name"`
	}
	type rawTicket struct {
		ID      int    `json:"id"`
		Subject string `json:"subject"`
	}
	app := &appkit.App{ID: "desk", Name: "Desk", Version: "1.0.0",
		Auth: []appkit.Auth{appkit.TokenAuth("Token", "The desk's API token", func(ctx context.Context, token string) (string, error) { return "desk", nil })},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "ticket", Name: "Tickets",
			Data: upstream.Items(api, "/tickets", upstream.LinkHeader(), func(t rawTicket) (Ticket, error) {
				return Ticket{ID: fmt.Sprint(t.ID), Name: t.Subject}, nil
			})}}}}

	h, err := app.Handler()
	if err != nil {
		fmt.Println(err)
		return
	}
	// What the service does: POST data, then again with nextPageConfig.
	pagination := "null"
	for {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/v1/synchronizer/data", strings.NewReader(
			`{"requestedType":"ticket","types":["ticket"],"account":{"token":"demo-token"},"pagination":`+pagination+`}`)))
		var page struct {
			Items      []map[string]any
			Pagination struct {
				HasNext        bool
				NextPageConfig json.RawMessage
			}
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &page)
		fmt.Println(len(page.Items), "items:", page.Items[0]["name"])
		if !page.Pagination.HasNext {
			break
		}
		pagination = string(page.Pagination.NextPageConfig)
	}
	// Output:
	// 2 items: Cannot log in
	// 1 items: Slow page
}

// A list with request-dependent parameters and delta pages with removals.
func ExampleList() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"items":[{"id":"7","since":%q}],"deleted":["3"],"next":null}`, r.URL.Query().Get("since"))
	}))
	defer srv.Close()
	type Change struct {
		ID, Since string
	}
	list := upstream.List[Change, Change]{
		Client: &upstream.Client{BaseURL: srv.URL},
		Path:   "/changes",
		Pager:  upstream.BodyCursor("next", "cursor").Items("items"),
		Map:    func(c Change) (Change, error) { return c, nil },
		Query: func(req *appkit.DataRequest) (url.Values, error) {
			return url.Values{"since": {req.LastSynchronizedAt.Format(time.DateOnly)}}, nil
		},
		Delta:   func(req *appkit.DataRequest) bool { return !req.LastSynchronizedAt.IsZero() },
		Removed: "deleted",
	}
	req := &appkit.DataRequest{LastSynchronizedAt: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)}
	page, err := list.Page(context.Background(), req, nil)
	fmt.Printf("%+v %v %v %v %v\n", page.Items, page.Removed, page.Delta, page.Next == nil, err)
	_ = list.Handler() // as a type's Data
	// Output: [{ID:7 Since:2026-03-01}] [3] true true <nil>
}

func ExampleFetch() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `[%q, "b"]`, r.URL.Query().Get("offset"))
	}))
	defer srv.Close()
	s := (&upstream.Client{BaseURL: srv.URL}).For(nil)
	var cur *upstream.Cursor
	for range 2 {
		f, err := upstream.Fetch[string](context.Background(), s, upstream.OffsetLimit("offset", "limit", 2), upstream.Request{Path: "/letters"}, cur)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(f.Items, f.Next.Offset)
		cur = f.Next
	}
	// Output:
	// [0 b] 2
	// [2 b] 4
}

func ExampleParseLink() {
	links, err := upstream.ParseLink(`<https://api.github.com/repositories/1/issues?page=2>; rel="next", <https://api.github.com/repositories/1/issues?page=9>; rel="last"`)
	fmt.Println(upstream.NextLink(links), err)
	_, err = upstream.ParseLink(`<https://api.github.com/x; rel="next"`)
	fmt.Println(err)
	// Output:
	// https://api.github.com/repositories/1/issues?page=2 <nil>
	// upstream: unusable answer: Link header "<https://api.github.com/x; rel=\"next\"" does not parse: < without >
}

func ExampleRateLimitWait() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	h := http.Header{}
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Reset", fmt.Sprint(now.Add(5*time.Minute).Unix()))
	wait, ok := upstream.RateLimitWait(h, now)
	fmt.Println(wait, ok, upstream.RateLimitExhausted(h))
	// Output: 5m0s true true
}

// Each authentication reads its credentials from the account values.
func ExampleAuth() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, p, _ := r.BasicAuth()
		fmt.Fprintf(w, "%q", r.Header.Get("Authorization")+"|"+r.Header.Get("X-Api-Key")+"|"+r.URL.Query().Get("key")+"|"+u+":"+p)
	}))
	defer srv.Close()
	account := appkit.Account{"token": "t0k3n", "user": "ann", "password": "pw"}
	for _, auth := range []upstream.Auth{
		upstream.Bearer("token"),
		upstream.TokenHeader("Authorization", "token", "token"),
		upstream.TokenHeader("X-Api-Key", "", "token"),
		upstream.QueryKey("key", "token"),
		upstream.Basic("user", "password"),
		upstream.ByAuth(map[string]upstream.Auth{"token": upstream.Bearer("token")}),
	} {
		got, _ := upstream.Get[string](context.Background(), (&upstream.Client{BaseURL: srv.URL, Auth: auth}).For(account), "/", nil)
		fmt.Println(got)
	}
	// Output:
	// Bearer t0k3n|||:
	// token t0k3n|||:
	// |t0k3n||:
	// ||t0k3n|:
	// Basic YW5uOnB3|||ann:pw
	// Bearer t0k3n|||:
}

func ExamplePageNumber() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("page") {
		case "1":
			fmt.Fprint(w, `{"data":["a","b"]}`)
		case "2":
			fmt.Fprint(w, `{"data":["c"]}`) // shorter than per_page: the last page
		}
	}))
	defer srv.Close()
	s := (&upstream.Client{BaseURL: srv.URL}).For(nil)
	pager := upstream.PageNumber("page", "per_page", 2).Items("data")
	var cur *upstream.Cursor
	for {
		f, err := upstream.Fetch[string](context.Background(), s, pager, upstream.Request{Path: "/letters"}, cur)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(f.Items)
		if f.Next == nil {
			break
		}
		cur = f.Next
	}
	// Output:
	// [a b]
	// [c]
}

// OAuth accounts: the flow's token is sent; a 401 refreshes it once
// through the flow (see the package doc).
func ExampleOAuth2() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%q", r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	flow := &oauth.OAuth2{ClientID: "app", ClientSecret: "secret", AuthURL: "https://p.example/authorize", TokenURL: "https://p.example/token"}
	api := &upstream.Client{BaseURL: srv.URL, Auth: upstream.OAuth2(flow)}
	account := appkit.Account{"auth": "oauth2", "access_token": "at-1", "refresh_token": "rt-1"}
	got, err := upstream.Get[string](context.Background(), api.For(account), "/me", nil)
	fmt.Println(got, err)
	// Output: Bearer at-1 <nil>
}

func ExampleClient_Check() {
	fmt.Println((&upstream.Client{BaseURL: "api.example.com/v1"}).Check())
	fmt.Println((&upstream.Client{BaseURL: "https://api.example.com/v1"}).Check())
	// Output:
	// upstream: BaseURL "api.example.com/v1" is not an absolute http(s) URL
	// <nil>
}

// The upstream's own error stays reachable under the protocol's.
func ExampleStatusError() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"message":"Not Found"}`)
	}))
	defer srv.Close()
	_, err := upstream.Get[any](context.Background(), (&upstream.Client{BaseURL: srv.URL}).For(nil), "/repos/octo/missing", nil)
	var se *upstream.StatusError
	fmt.Println(errors.As(err, &se), se.Status, se.Method, strings.TrimPrefix(se.Resource, strings.TrimPrefix(srv.URL, "http://")), errors.Is(err, upstream.ErrNotFound))
	// Output: true 404 GET /repos/octo/missing true
}

// A network failure is a CallError, and tryLater for the service.
func ExampleCallError() {
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close() // nothing listens any more
	_, err := upstream.Get[any](context.Background(), (&upstream.Client{BaseURL: srv.URL, Retries: -1}).For(nil), "/x", nil)
	var ce *upstream.CallError
	var ae *appkit.Error
	fmt.Println(errors.As(err, &ce), errors.Is(err, upstream.ErrUnavailable), errors.As(err, &ae) && ae.TryLater)
	// Output: true true true
}
