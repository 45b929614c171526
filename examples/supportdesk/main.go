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
	"net"
	"os"
	"strconv"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/examples/supportdesk/desk"
)

func main() {
	if err := run(context.Background(), os.Getenv, nil); err != nil {
		fmt.Fprintln(os.Stderr, "supportdesk:", err)
		os.Exit(1)
	}
}

// run serves the app configured by getenv on l (nil: on $PORT) until ctx
// is cancelled or a signal arrives.
func run(ctx context.Context, getenv func(string) string, l net.Listener) error {
	port, tickets := getenv("PORT"), 120
	if port == "" {
		port = "8080"
	}
	if v := getenv("DESK_TICKETS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1_000_000 {
			return fmt.Errorf("DESK_TICKETS: want a number 0..1000000, got %q", v)
		}
		tickets = n
	}
	if l == nil {
		var err error
		if l, err = net.Listen("tcp", ":"+port); err != nil {
			return err
		}
	}
	return appkit.ServeListener(ctx, l, desk.New(tickets, nil).App())
}
