package appkit_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
)

// A synchronization app: one type, token authentication, pages of two items
// with a typed cursor (here the test file's cursor struct {Offset int}).
func ExampleApp_sync() {
	books := []string{"Dune", "Emma", "Ulysses", "Walden", "Beloved"}
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
			Fields: []appkit.Field{appkit.ID("ID"), appkit.Text("name", "Title")},
			Data: appkit.Pages(func(ctx context.Context, req *appkit.DataRequest, cur *cursor) (*appkit.Page[cursor], error) {
				from := 0
				if cur != nil {
					from = cur.Offset
				}
				to := min(from+2, len(books))
				page := &appkit.Page[cursor]{}
				for i := from; i < to; i++ {
					page.Items = append(page.Items, appkit.Item{"id": fmt.Sprint(i), "name": books[i]})
				}
				if to < len(books) {
					page.Next = &cursor{Offset: to}
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
	post := func(path, body string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", path, strings.NewReader(body)))
		out, _ := io.ReadAll(rec.Body)
		fmt.Print(rec.Code, " ", string(out))
	}
	post("/validate", `{"id":"token","fields":{"token":"demo"}}`)
	post("/api/v1/synchronizer/data", `{"requestedType":"book"}`)
	post("/api/v1/synchronizer/data", `{"requestedType":"book","pagination":{"offset":4}}`)
	post("/api/v1/synchronizer/data", `{"requestedType":"book","pagination":{"offset":"x"}}`)
	// Output:
	// 200 {"name":"Demo library"}
	// 200 {"items":[{"id":"0","name":"Dune"},{"id":"1","name":"Emma"}],"pagination":{"hasNext":true,"nextPageConfig":{"offset":2}},"synchronizationType":"full"}
	// 200 {"items":[{"id":"4","name":"Beloved"}],"pagination":{"hasNext":false},"synchronizationType":"full"}
	// 400 {"message":"pagination: not a cursor of this app: json: cannot unmarshal string into Go struct field cursor.offset of type int"}
}

// An external-action app: one action with two arguments.
func ExampleApp_actions() {
	app := &appkit.App{
		ID: "notify", Name: "Notify", Version: "1.0.0",
		Auth: []appkit.Auth{appkit.NoAuth()},
		Actions: []appkit.Action{{
			ID: "greet", Name: "Greet",
			Args: []appkit.Arg{
				{ID: "who", Name: "Who", Type: appkit.ArgText},
				{ID: "text", Name: "Text", Type: appkit.ArgTextArea, TextTemplate: true},
			},
			Run: func(ctx context.Context, req *appkit.ActionRequest) error {
				if req.Args.String("who") == "" {
					return appkit.BadRequest("who is required")
				}
				fmt.Printf("greeting %s: %s\n", req.Args.String("who"), req.Args.String("text"))
				return nil
			},
		}},
		Logger: &zerolog.Logger{},
	}
	h, err := app.Handler()
	if err != nil {
		panic(err)
	}
	for _, body := range []string{
		`{"action":{"action":"greet","args":{"who":"Ada","text":"Hello"}},"account":{}}`,
		`{"action":{"action":"greet","args":{}},"account":{}}`,
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/api/v1/automations/action/execute", strings.NewReader(body)))
		fmt.Print(rec.Code, " ", rec.Body.String())
	}
	// Output:
	// greeting Ada: Hello
	// 200 {}
	// 400 {"message":"who is required"}
}

// Checking a declaration at start: every problem is reported with its place.
func ExampleApp_Check() {
	app := &appkit.App{
		ID: "broken", Name: "Broken", Version: "1",
		Auth: []appkit.Auth{appkit.NoAuth()},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "task", Name: "Tasks", Fields: []appkit.Field{appkit.Text("name", "Name")}}}},
	}
	fmt.Println(app.Check())
	// Output:
	// type "task": Data handler is nil
	// type "task": has no "id" field
}
