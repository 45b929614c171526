package appkittest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/appkittest"
)

// The handles an app declares once (in the app's package, exported for its
// tests).
var (
	apiKey    = appkit.SecretAccountField("key", "API key", "Settings, API")
	colour    = appkit.ListFilter("colour", "Colour", nil).Optional()
	recipient = appkit.TextArg("to", "Recipient")
)

// Fruit is the item struct of the app's type "fruit".
type Fruit struct {
	ID     string `appkit:"id"`
	Name   string `appkit:"name"`
	Colour string `appkit:"colour"`
	Weight int    `appkit:"weight"`
}

func fruitApp() *appkit.App {
	all := []Fruit{{"1", "Apple", "red", 180}, {"2", "Banana", "yellow", 120}, {"3", "Cherry", "red", 8}}
	nop := zerolog.Nop()
	return &appkit.App{ID: "fruit", Name: "Fruit", Version: "1", Logger: &nop,
		Auth: []appkit.Auth{{ID: "key", Name: "API key", Fields: appkit.Form(apiKey),
			Validate: func(ctx context.Context, a appkit.Account) (*appkit.Validation, error) {
				return &appkit.Validation{Name: "orchard"}, nil
			}}},
		Sync: &appkit.Sync{Filters: []appkit.Filter{colour}, Types: []appkit.Type{{ID: "fruit", Name: "Fruit",
			Data: appkit.All(func(ctx context.Context, r *appkit.DataRequest) ([]Fruit, error) {
				if k, _ := apiKey.Get(r.Account); k != "k1" {
					return nil, appkit.InvalidAccount("unknown key")
				}
				want, narrowed := colour.Get(r.Filter)
				var out []Fruit
				for _, f := range all {
					if !narrowed || f.Colour == want {
						out = append(out, f)
					}
				}
				return out, nil
			})}}},
		Actions: []appkit.Action{{ID: "send", Name: "Send", Args: appkit.ArgList(recipient),
			Run: func(ctx context.Context, r *appkit.ActionRequest) error {
				to, _ := recipient.Get(r.Args)
				fmt.Println("sent to", to)
				return nil
			}}},
	}
}

// Typed entry points: handles in (the account, the filter, the arguments),
// typed items out.
func ExampleItems() {
	testFruit := func(t testing.TB) {
		c := appkittest.New(t, fruitApp())
		c.Account = appkittest.Values(appkittest.AccountValue(apiKey, "k1"))
		red := appkittest.Items[Fruit](c, appkittest.Run{Type: "fruit",
			Filter: appkittest.Values(appkittest.FilterValue(colour, "red"))})
		for _, f := range red {
			fmt.Printf("%s weighs %d g\n", f.Name, f.Weight)
		}
		r := appkittest.ExecuteAction(c, "send", appkittest.ArgValue(recipient, "ada@example.com"))
		fmt.Println("execute:", r.Status)
	}
	fmt.Println("failures:", runExample(testFruit))
	// Output:
	// Apple weighs 180 g
	// Cherry weighs 8 g
	// sent to ada@example.com
	// execute: 200
	// failures: []
}

// Values turns typed values into the wire form of an account, a filter or
// an action's arguments.
func ExampleValues() {
	fmt.Println(appkittest.Values(
		appkittest.FilterValue(appkit.DayFilter("since", "Since"), appkit.Day{Year: 2026, Month: 3, Day: 1}),
		appkittest.FilterValue(appkit.MultiDropdownFilter("tags", "Tags", nil), []string{"a", "b"}),
	))
	// Output:
	// map[since:2026-03-01 tags:[a b]]
}

// NewHandler drives any handler serving the protocol, here one written
// without appkit, with the same checks; Options asks a datalist filter for
// its options by its handle.
func ExampleNewHandler() {
	plain := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v1/synchronizer/datalist":
			_, _ = io.WriteString(w, `{"items":[{"title":"Red","value":"red"},{"title":"Yellow","value":"yellow"}]}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{}`) // no {message}: the harness fails this
		}
	})
	failures := runExample(func(t testing.TB) {
		c := appkittest.NewHandler(t, plain)
		for _, o := range appkittest.Options(c, colour) {
			fmt.Println(o.Title, "=", o.Value)
		}
		c.Do(http.MethodPost, "/api/v1/synchronizer/config", map[string]any{})
	})
	fmt.Println(len(failures), "failure:", failures[0])
	// Output:
	// Red = red
	// Yellow = yellow
	// 1 failure: appkittest: POST /api/v1/synchronizer/config answered 404 without a {message}: {}
}
