// Command providerstub stands in for an OAuth 2 provider's API in
// .ci/images.sh: it listens on the loopback address given as its argument
// and refuses every request with 401, as a provider refuses an unknown
// token, so that an OAuth 2 example's image can be checked without
// reaching the network.
package main

import (
	"fmt"
	"net/http"
	"os"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: providerstub 127.0.0.1:PORT")
		os.Exit(2)
	}
	srv := &http.Server{Addr: os.Args[1], ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":"invalid_token"}`))
	})}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, "providerstub:", err)
		os.Exit(1)
	}
}
