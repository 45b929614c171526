// Command supportdesk serves the support-desk example app (package
// [github.com/appkitgo/appkit/examples/supportdesk/desk]): customers and
// tickets of an in-memory help desk.
//
// Environment: PORT, the port to listen on (default 8080); DESK_TICKETS,
// the number of seeded tickets (default 120). The API token is "desk-demo".
// SIGINT or SIGTERM shuts the server down gracefully.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/examples/supportdesk/desk"
)

func main() {
	port, tickets := os.Getenv("PORT"), 120
	if port == "" {
		port = "8080"
	}
	if v := os.Getenv("DESK_TICKETS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1_000_000 {
			fmt.Fprintf(os.Stderr, "supportdesk: DESK_TICKETS: want a number 0..1000000, got %q\n", v)
			os.Exit(2)
		}
		tickets = n
	}
	if err := appkit.ListenAndServe(context.Background(), ":"+port, desk.New(tickets, nil).App()); err != nil {
		fmt.Fprintln(os.Stderr, "supportdesk:", err)
		os.Exit(1)
	}
}
