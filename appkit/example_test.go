package appkit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/daterange"
)

// post sends one request to an app's handler and prints the answer.
func post(h http.Handler, path, body string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", path, strings.NewReader(body)))
	out, _ := io.ReadAll(rec.Body)
	fmt.Print(rec.Code, " ", string(out))
	if rec.Code == 204 {
		fmt.Println()
	}
}

// Book is a type declared from a Go struct: its fields are the schema, and
// pages carry the structs.
type Book struct {
	ID        string     `appkit:"id"`
	Name      string     `appkit:"name,name=Title"`
	Author    string     `appkit:"author"`
	Pages     int        `appkit:"pages"`
	Published appkit.Day `appkit:"published"`
	Available bool       `appkit:"available"`
	Summary   string     `appkit:"summary,md"`
}

// BookCursor is the page cursor: where the next page starts.
type BookCursor struct {
	Offset int `json:"offset"`
}

var library = []Book{
	{ID: "1", Name: "Dune", Author: "Frank Herbert", Pages: 412, Published: appkit.Day{Year: 1965, Month: 8, Day: 1}, Available: true, Summary: "*Spice* & sand"},
	{ID: "2", Name: "Emma", Author: "Jane Austen", Pages: 474, Published: appkit.Day{Year: 1815, Month: 12, Day: 23}},
	{ID: "3", Name: "Walden", Author: "Henry David Thoreau", Pages: 352, Published: appkit.Day{Year: 1854, Month: 8, Day: 9}, Available: true},
}

// A synchronization app whose type is declared by a struct, paged with a
// typed cursor.
func ExampleApp_sync() {
	app := &appkit.App{
		ID: "books", Name: "Books", Version: "1.0.0",
		Auth: []appkit.Auth{appkit.TokenAuth("API token", "Your library token",
			func(ctx context.Context, token string) (string, error) {
				if token != "demo" {
					return "", errors.New("unknown token")
				}
				return "Demo library", nil
			})},
		Sync: &appkit.Sync{Types: []appkit.Type{{
			ID: "book", Name: "Books",
			Data: appkit.Pages(func(ctx context.Context, req *appkit.DataRequest, cur *BookCursor) (*appkit.Page[Book, BookCursor], error) {
				from := 0
				if cur != nil {
					from = cur.Offset
				}
				to := min(from+2, len(library))
				page := &appkit.Page[Book, BookCursor]{Items: library[from:to]}
				if to < len(library) {
					page.Next = &BookCursor{Offset: to}
				}
				return page, nil
			}),
		}}},
		Logger: &zerolog.Logger{},
	}
	h, err := app.Handler() // checks the declaration once
	if err != nil {
		panic(err)
	}
	// In production: appkit.ListenAndServe(ctx, ":8080", app).
	post(h, "/validate", `{"id":"token","fields":{"token":"demo"}}`)
	post(h, "/api/v1/synchronizer/schema", `{"types":["book"]}`)
	post(h, "/api/v1/synchronizer/data", `{"requestedType":"book"}`)
	post(h, "/api/v1/synchronizer/data", `{"requestedType":"book","pagination":{"offset":2}}`)
	// Output:
	// 200 {"name":"Demo library"}
	// 200 {"book":{"author":{"id":"author","name":"Author","type":"text","order":3},"available":{"id":"available","name":"Available","type":"text","subType":"boolean","order":6},"id":{"id":"id","name":"ID","type":"id","order":1},"name":{"id":"name","name":"Title","type":"text","order":2},"pages":{"id":"pages","name":"Pages","type":"number","subType":"integer","order":4},"published":{"id":"published","name":"Published","type":"date","subType":"day","order":5},"summary":{"id":"summary","name":"Summary","type":"text","subType":"md","order":7}}}
	// 200 {"items":[{"id":"1","name":"Dune","author":"Frank Herbert","pages":412,"published":"1965-08-01","available":"true","summary":"*Spice* & sand"},{"id":"2","name":"Emma","author":"Jane Austen","pages":474,"published":"1815-12-23","available":"false","summary":""}],"pagination":{"hasNext":true,"nextPageConfig":{"offset":2}},"synchronizationType":"full"}
	// 200 {"items":[{"id":"3","name":"Walden","author":"Henry David Thoreau","pages":352,"published":"1854-08-09","available":"true","summary":""}],"pagination":{"hasNext":false},"synchronizationType":"full"}
}

// Loan is a type that can answer delta pages: only what changed since the
// last run, with removals.
type Loan struct {
	ID       string    `appkit:"id"`
	Name     string    `appkit:"name"`
	Book     string    `appkit:"book,ref=book,inverse=Loans"`
	Returned time.Time `appkit:"returned,omitempty"`
}

// Delta pages: a type declares Delta once; its handler answers delta when it
// can express the change (here: whenever a last run is known) and full
// otherwise. Removals go in Page.Removed, which only a delta page carries.
func ExamplePage_delta() {
	app := &appkit.App{
		ID: "loans", Name: "Loans", Version: "1.0.0", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: &zerolog.Logger{},
		Sync: &appkit.Sync{Types: []appkit.Type{
			{ID: "book", Name: "Books", Data: appkit.All(func(context.Context, *appkit.DataRequest) ([]Book, error) { return library, nil })},
			{ID: "loan", Name: "Loans", Delta: true,
				Data: appkit.Pages(func(ctx context.Context, req *appkit.DataRequest, _ *appkit.NoCursor) (*appkit.Page[Loan, appkit.NoCursor], error) {
					if req.LastSynchronizedAt.IsZero() {
						return &appkit.Page[Loan, appkit.NoCursor]{Items: []Loan{{ID: "l1", Name: "Dune to Ada", Book: "1"}, {ID: "l2", Name: "Emma to Bo", Book: "2"}}}, nil
					}
					// Since the last run: l1 came back (a partial item: the
					// fields left out are unchanged), l2 was deleted.
					back := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
					return &appkit.Page[Loan, appkit.NoCursor]{Delta: true, Items: []Loan{{ID: "l1", Name: "Dune to Ada", Book: "1", Returned: back}}, Removed: []string{"l2"}}, nil
				})},
		}},
	}
	h, err := app.Handler()
	if err != nil {
		panic(err)
	}
	post(h, "/api/v1/synchronizer/data", `{"requestedType":"loan"}`)
	post(h, "/api/v1/synchronizer/data", `{"requestedType":"loan","lastSynchronizedAt":"2026-11-01T00:00:00Z"}`)
	// Output:
	// 200 {"items":[{"id":"l1","name":"Dune to Ada","book":"1"},{"id":"l2","name":"Emma to Bo","book":"2"}],"pagination":{"hasNext":false},"synchronizationType":"full"}
	// 200 {"items":[{"id":"l1","name":"Dune to Ada","book":"1","returned":"2026-11-02T10:00:00.000Z","__syncAction":"SET"},{"id":"l2","__syncAction":"REMOVE"}],"pagination":{"hasNext":false},"synchronizationType":"delta"}
}

// Filters are typed handles: declared once, listed in Sync.Filters, read
// with Get. A list filter brings its own datalist; a dependent one names the
// filters it requires.
func ExampleMultiDropdownFilter() {
	authors := appkit.MultiDropdownFilter("authors", "Authors", func(ctx context.Context, req *appkit.DatalistRequest) ([]appkit.Option, error) {
		var out []appkit.Option
		for _, b := range library {
			out = append(out, appkit.Option{Title: b.Author, Value: b.Author})
		}
		return out, nil
	}).Optional()
	published := appkit.DateRangeFilter("published", "Published").Optional()
	app := &appkit.App{
		ID: "books", Name: "Books", Version: "1.0.0", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: &zerolog.Logger{},
		Sync: &appkit.Sync{
			Filters: []appkit.Filter{authors, published},
			Types: []appkit.Type{{ID: "book", Name: "Books",
				Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]Book, error) {
					want, _ := authors.Get(req.Filter)
					when, _ := published.Get(req.Filter)
					var out []Book
					for _, b := range library {
						if (len(want) == 0 || slices.Contains(want, b.Author)) && within(when, b.Published) {
							out = append(out, b)
						}
					}
					return out, nil
				})}},
		},
	}
	h, err := app.Handler()
	if err != nil {
		panic(err)
	}
	post(h, "/api/v1/synchronizer/datalist", `{"field":"authors"}`)
	// The service parses "between 1 January 1800 and 31 December 1899" into
	// this range.
	post(h, "/api/v1/synchronizer/data", `{"requestedType":"book","filter":{"authors":["Jane Austen","Henry David Thoreau"],"published":{"_min":"1800-01-01T00:00:00.000","_max":"1849-12-31T23:59:59.999"}}}`)
	// Output:
	// 200 {"items":[{"title":"Frank Herbert","value":"Frank Herbert"},{"title":"Jane Austen","value":"Jane Austen"},{"title":"Henry David Thoreau","value":"Henry David Thoreau"}]}
	// 200 {"items":[{"id":"2","name":"Emma","author":"Jane Austen","pages":474,"published":"1815-12-23","available":"false","summary":""}],"pagination":{"hasNext":false},"synchronizationType":"full"}
}

// within reports whether day d lies in the range r (open sides match).
func within(r daterange.Range, d appkit.Day) bool {
	t := d.Time(time.UTC)
	return (r.Min == nil || !t.Before(*r.Min)) && (r.Max == nil || !t.After(*r.Max))
}

// An external-action app: one action with two arguments, declared once as
// handles and read with Get; a call without a required argument is refused
// before the action runs.
func ExampleApp_actions() {
	who := appkit.TextArg("who", "Who")
	text := appkit.TextAreaArg("text", "Text").Templated().Optional()
	app := &appkit.App{
		ID: "notify", Name: "Notify", Version: "1.0.0",
		Auth: []appkit.Auth{appkit.NoAuth()},
		Actions: []appkit.Action{{
			ID: "greet", Name: "Greet",
			Args: appkit.ArgList(who, text),
			Run: func(ctx context.Context, req *appkit.ActionRequest) error {
				name, _ := who.Get(req.Args)
				greeting, ok := text.Get(req.Args)
				if !ok {
					greeting = "Hi"
				}
				fmt.Printf("greeting %s: %s\n", name, greeting)
				return nil
			},
		}},
		Logger: &zerolog.Logger{},
	}
	h, err := app.Handler()
	if err != nil {
		panic(err)
	}
	post(h, "/api/v1/automations/action/execute", `{"action":{"action":"greet","args":{"who":"Ada","text":"Hello"}},"account":{}}`)
	post(h, "/api/v1/automations/action/execute", `{"action":{"action":"greet","args":{"who":"Bo"}},"account":{}}`)
	post(h, "/api/v1/automations/action/execute", `{"action":{"action":"greet","args":{}},"account":{}}`)
	// Output:
	// greeting Ada: Hello
	// 200 {}
	// greeting Bo: Hi
	// 200 {}
	// 400 {"message":"action.args.who: the argument \"Who\" is required"}
}

// Checking a declaration at start: every problem is reported with its place.
func ExampleApp_Check() {
	type task struct {
		ID    string
		Title string
		Size  complex64
	}
	app := &appkit.App{
		ID: "broken", Name: "Broken", Version: "1",
		Auth: []appkit.Auth{appkit.NoAuth()},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "task", Name: "Tasks",
			Data: appkit.All(func(context.Context, *appkit.DataRequest) ([]task, error) { return nil, nil })}}},
	}
	fmt.Println(app.Check())
	// Output:
	// type "task": appkit_test.task: struct field Size ("size"): type complex64 has no schema kind (use string, bool, an integer, a float, time.Time, appkit.Day, []string or a pointer to one)
	// type "task": has no "name" field (the item's title)
}

// ListenAddr reads the address an app's main listens on from PORT: ":8080"
// when it is not set, an error naming PORT when it is not a port number.
func ExampleListenAddr() {
	for _, port := range []string{"", "9001", "http"} {
		getenv := func(key string) string {
			if key == "PORT" {
				return port
			}
			return ""
		}
		addr, err := appkit.ListenAddr(getenv)
		if err != nil {
			fmt.Println("error:", err)
			continue
		}
		fmt.Println("listening on", addr)
	}
	// Output:
	// listening on :8080
	// listening on :9001
	// error: PORT: want a port number 0..65535, got "http"
}
