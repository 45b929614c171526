package upstream_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/upstream"
)

// teams is a stand-in of an upstream whose teams page by a body cursor, two
// a page unless asked for more with limit=.
func teams() *httptest.Server {
	all := []string{"Billing", "Support", "Sales"}
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer demo-token" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		from := 0
		if r.URL.Query().Get("cursor") != "" {
			_, _ = fmt.Sscan(r.URL.Query().Get("cursor"), &from)
		}
		size := 2
		if r.URL.Query().Get("limit") != "" {
			_, _ = fmt.Sscan(r.URL.Query().Get("limit"), &size)
		}
		to, next := min(from+size, len(all)), "null"
		if to < len(all) {
			next = fmt.Sprint(to)
		}
		fmt.Fprintf(w, `{"teams":[`)
		for i, t := range all[from:to] {
			if i > 0 {
				fmt.Fprint(w, ",")
			}
			fmt.Fprintf(w, `{"id":%d,"name":%q}`, from+i+1, t)
		}
		fmt.Fprintf(w, `],"next":%s}`, next)
	}))
}

// All walks every page of a list outside a data handler: here the
// options of a datalist filter, bounded at 500 teams (past it, an error
// wrapping ErrTooMany).
func ExampleAll() {
	srv := teams()
	defer srv.Close()
	api := &upstream.Client{BaseURL: srv.URL, Auth: upstream.BearerFrom(appkit.TokenAuthToken)}
	type apiTeam struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
	}
	pager := upstream.BodyCursor("next", "cursor").Items("teams")

	teamFilter := appkit.ListFilter("team", "Team", func(ctx context.Context, req *appkit.DatalistRequest) ([]appkit.Option, error) {
		all, err := upstream.All[apiTeam](ctx, api.For(req.Account), pager, upstream.Request{Path: "/teams"}, 500)
		if err != nil {
			return nil, err
		}
		out := make([]appkit.Option, len(all))
		for i, t := range all {
			out[i] = appkit.Option{Title: t.Name, Value: fmt.Sprint(t.ID)}
		}
		return out, nil
	})
	app := &appkit.App{ID: "desk", Name: "Desk", Version: "1.0.0", Logger: &zerolog.Logger{},
		Auth: []appkit.Auth{appkit.TokenAuth("Token", "The desk's API token", func(ctx context.Context, token string) (string, error) { return "desk", nil })},
		Sync: &appkit.Sync{Filters: []appkit.Filter{teamFilter}, Types: []appkit.Type{{ID: "ticket", Name: "Tickets",
			Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]struct {
				ID   string `appkit:"id"`
				Name string `appkit:"name"`
			}, error) {
				return nil, nil
			})}}}}
	h, err := app.Handler()
	if err != nil {
		fmt.Println(err)
		return
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/v1/synchronizer/datalist",
		strings.NewReader(`{"field":"team","types":["ticket"],"account":{"token":"demo-token"}}`)))
	body, _ := io.ReadAll(rec.Body)
	fmt.Println(rec.Code, strings.TrimSpace(string(body)))
	// Output:
	// 200 {"items":[{"title":"Billing","value":"1"},{"title":"Support","value":"2"},{"title":"Sales","value":"3"}]}
}

// PageSize asks a cursor pager's upstream for bigger pages: here one page
// of up to 100 teams instead of two pages of two.
func ExamplePager_PageSize() {
	srv := teams()
	defer srv.Close()
	api := &upstream.Client{BaseURL: srv.URL, Auth: upstream.BearerFrom(appkit.TokenAuthToken)}
	pager := upstream.BodyCursor("next", "cursor").Items("teams").PageSize("limit", 100)

	page, err := upstream.Fetch[struct{ Name string }](context.Background(), api.For(appkit.Account{"token": "demo-token"}), pager, upstream.Request{Path: "/teams"}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(page.Response.URL.RawQuery, len(page.Items), page.Next == nil)
	// Output: limit=100 3 true
}

// BearerFrom takes the typed handle of the account field the app's Auth
// declares (appkit.TokenAuthToken for appkit.TokenAuth) instead of its id.
func ExampleBearerFrom() {
	srv := desk()
	defer srv.Close()
	api := &upstream.Client{BaseURL: srv.URL + "/api", Auth: upstream.BearerFrom(appkit.TokenAuthToken)}
	account := appkit.Account{appkit.TokenAuthToken.ID(): "demo-token"} // a request's req.Account

	me, err := upstream.Get[struct{ Login string }](context.Background(), api.For(account), "/me", nil)
	fmt.Println(me.Login, err)
	// Output: ann <nil>
}
