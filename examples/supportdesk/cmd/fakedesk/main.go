// Command fakedesk serves the stand-in help-desk API (package
// [github.com/appkitgo/appkit/examples/supportdesk/fakedesk]) that the
// support-desk example app synchronizes from.
//
// Environment: DESK_ADDR, the address to listen on (default
// 127.0.0.1:8081); DESK_TICKETS, the number of seeded tickets (default
// 120). The API token is "desk-demo".
package main

import (
	"fmt"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/appkitgo/appkit/examples/supportdesk/fakedesk"
)

func main() {
	addr, tickets := os.Getenv("DESK_ADDR"), 120
	if addr == "" {
		addr = "127.0.0.1:8081"
	}
	if v := os.Getenv("DESK_TICKETS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1_000_000 {
			fmt.Fprintf(os.Stderr, "fakedesk: DESK_TICKETS: want a number 0..1000000, got %q\n", v)
			os.Exit(2)
		}
		tickets = n
	}
	srv := &http.Server{Addr: addr, Handler: fakedesk.New(tickets, nil), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "fakedesk: the help-desk API on http://%s/api (token %s)\n", addr, fakedesk.Token)
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "fakedesk:", err)
		os.Exit(1)
	}
}
