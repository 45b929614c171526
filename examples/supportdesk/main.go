// Command supportdesk serves the support-desk example app (package
// [github.com/appkitgo/appkit/examples/supportdesk/desk]) over the help
// desk's API at DESK_URL.
//
// Environment: PORT, the port to listen on (default 8080); DESK_URL, the
// help desk's API root (default http://127.0.0.1:8081/api, where
// `go run ./examples/supportdesk/cmd/fakedesk` serves a stand-in).
// SIGINT or SIGTERM shuts the server down gracefully.
package main

import (
	"cmp"
	"context"
	"fmt"
	"os"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/examples/supportdesk/desk"
)

func main() {
	port, api := cmp.Or(os.Getenv("PORT"), "8080"), cmp.Or(os.Getenv("DESK_URL"), "http://127.0.0.1:8081/api")
	if err := appkit.ListenAndServe(context.Background(), ":"+port, desk.New(desk.Config{URL: api})); err != nil {
		fmt.Fprintln(os.Stderr, "supportdesk:", err)
		os.Exit(1)
	}
}
