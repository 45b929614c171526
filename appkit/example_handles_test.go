package appkit_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
)

// Account fields declared once as typed handles: Form lists them in the
// authentication, Get reads them in every handler.
func ExampleForm() {
	server := appkit.TextAccountField("server", "Server", "The server's address")
	port := appkit.NumberAccountField("port", "Port", "The server's port").Optional()
	key := appkit.SecretAccountField("key", "API key", "Settings, API")
	app := &appkit.App{
		ID: "db", Name: "Database", Version: "1.0.0", Logger: &zerolog.Logger{},
		Auth: []appkit.Auth{{ID: "key", Name: "API key", Fields: appkit.Form(server, port, key),
			Validate: func(ctx context.Context, a appkit.Account) (*appkit.Validation, error) {
				host, _ := server.Get(a)
				p, ok := port.Get(a)
				if !ok {
					p = 443
				}
				if k, _ := key.Get(a); k != "open-sesame" {
					return nil, appkit.InvalidAccount("the key %s is refused by %s", k, host)
				}
				return &appkit.Validation{Name: fmt.Sprintf("%s:%g", host, p)}, nil
			}}},
		Actions: []appkit.Action{{ID: "noop", Name: "Nothing", Run: func(context.Context, *appkit.ActionRequest) error { return nil }}},
	}
	h, err := app.Handler()
	if err != nil {
		panic(err)
	}
	post(h, "/validate", `{"id":"key","fields":{"server":"db.example","port":"5432","key":"open-sesame"}}`)
	post(h, "/validate", `{"id":"key","fields":{"server":"db.example","key":"guessed-key"}}`) // the secret is masked
	// Output:
	// 200 {"name":"db.example:5432"}
	// 401 {"message":"the key *** is refused by db.example"}
}

// Delta helpers: Since gives LastSynchronizedAt less the declared margin,
// Filters.Any whether a filter narrows the run (which then answers full).
func ExampleDataRequest_Since() {
	author := appkit.TextFilter("author", "Author").Optional()
	app := &appkit.App{
		ID: "books", Name: "Books", Version: "1.0.0", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: &zerolog.Logger{},
		Sync: &appkit.Sync{
			DeltaMargin: time.Hour,
			Filters:     []appkit.Filter{author},
			Types: []appkit.Type{{ID: "book", Name: "Books", Delta: true,
				Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]Book, error) {
					since, delta := req.Since()
					if delta && !req.Filter.Any() {
						fmt.Println("delta: changes since", since.Format(time.RFC3339))
					} else {
						fmt.Println("full")
					}
					return nil, nil
				})}},
		},
	}
	h, err := app.Handler()
	if err != nil {
		panic(err)
	}
	for _, body := range []string{
		`{"requestedType":"book"}`,
		`{"requestedType":"book","lastSynchronizedAt":"2026-03-01T12:00:00Z"}`,
		`{"requestedType":"book","lastSynchronizedAt":"2026-03-01T12:00:00Z","filter":{"author":"Jane Austen"}}`,
	} {
		rec := newRecorder()
		h.ServeHTTP(rec, newPost("/api/v1/synchronizer/data", body))
	}
	// Output:
	// full
	// delta: changes since 2026-03-01T11:00:00Z
	// full
}

// DecodeItem reads an item in its wire form back into its struct: days,
// booleans sent as text and integer ids included.
func ExampleDecodeItem() {
	wire := map[string]any{"id": "2", "name": "Emma", "author": "Jane Austen", "pages": 474.0,
		"published": "1815-12-23", "available": "false", "summary": ""}
	b, err := appkit.DecodeItem[Book](wire)
	fmt.Printf("%+v %v\n", b, err)
	// Output:
	// {ID:2 Name:Emma Author:Jane Austen Pages:474 Published:1815-12-23 Available:false Summary:} <nil>
}

// ServeListener serves on a listener the caller opened: an app's main
// logic takes its listener as an argument (nil in production: listen on
// $PORT), so that a test can run it on a port it already holds.
func ExampleServeListener() {
	app := &appkit.App{ID: "hello", Name: "Hello", Version: "1.0.0", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: &zerolog.Logger{},
		Actions: []appkit.Action{{ID: "noop", Name: "Nothing", Run: func(context.Context, *appkit.ActionRequest) error { return nil }}}}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- appkit.ServeListener(ctx, l, app) }()
	resp, err := http.Get("http://" + l.Addr().String() + "/") // queued until the server accepts it
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, len(body) > 0)
	stop() // as SIGINT or SIGTERM would
	fmt.Println(<-done)
	// Output:
	// 200 true
	// <nil>
}

// A map schema names what each field declares: a day (YYYY-MM-DD) and a
// date-time (an instant) never share a name.
func ExampleDayField() {
	app := &appkit.App{ID: "events", Name: "Events", Version: "1.0.0", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: &zerolog.Logger{},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "event", Name: "Events",
			Fields: []appkit.Field{appkit.ID(), appkit.Text("name", "Name"), appkit.DayField("on", "On"), appkit.DateTimeField("starts", "Starts")},
			Data: appkit.All(func(context.Context, *appkit.DataRequest) ([]appkit.Item, error) {
				starts := time.Date(2026, 7, 14, 20, 30, 0, 0, time.UTC)
				return []appkit.Item{{"id": "e1", "name": "Fireworks", "on": appkit.DayOf(starts), "starts": starts}}, nil
			})}}},
	}
	h, err := app.Handler()
	if err != nil {
		panic(err)
	}
	post(h, "/api/v1/synchronizer/data", `{"requestedType":"event"}`)
	// Output:
	// 200 {"items":[{"id":"e1","name":"Fireworks","on":"2026-07-14","starts":"2026-07-14T20:30:00.000Z"}],"pagination":{"hasNext":false},"synchronizationType":"full"}
}

// TokenAuthToken reads the token of a TokenAuth account in any handler.
func ExampleTokenAuthToken() {
	app := &appkit.App{ID: "t", Name: "T", Version: "1.0.0", Logger: &zerolog.Logger{},
		Auth: []appkit.Auth{appkit.TokenAuth("API token", "Your token", func(ctx context.Context, token string) (string, error) { return "ok", nil })},
		Actions: []appkit.Action{{ID: "whoami", Name: "Who am I", Run: func(ctx context.Context, req *appkit.ActionRequest) error {
			token, _ := appkit.TokenAuthToken.Get(req.Account)
			fmt.Println("called with a token of", len(token), "characters")
			return nil
		}}},
	}
	h, err := app.Handler()
	if err != nil {
		panic(err)
	}
	post(h, "/api/v1/automations/action/execute", `{"action":{"action":"whoami"},"account":{"token":"s3cret-token"}}`)
	// Output:
	// called with a token of 12 characters
	// 200 {}
}
