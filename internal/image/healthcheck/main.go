// Command healthcheck is the health check of an app's container image:
// distroless and empty bases have no shell or curl, so the image carries
// this small static program and declares it as its HEALTHCHECK. It sends
// GET /healthz to the app on 127.0.0.1:$PORT (default 8080), which an app
// built with appkit answers 200 while it serves, and exits 0 when the app
// answers 200 within 3 seconds, 1 otherwise. An app that answers /healthz
// with 404 (built with an appkit from before it) is asked for GET /, its
// descriptor, instead.
package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	if err := probe("http://127.0.0.1:" + port); err != nil {
		fmt.Fprintln(os.Stderr, "healthcheck:", err)
		os.Exit(1)
	}
}

// errNotFound is the answer 404.
var errNotFound = errors.New("404")

// probe checks base/healthz, else base/ when the app has no /healthz.
func probe(base string) error {
	err := check(base + "/healthz")
	if errors.Is(err, errNotFound) {
		return check(base + "/")
	}
	return err
}

// check answers nil when GET url answers 200 within 3 seconds.
func check(url string) error {
	c := &http.Client{Timeout: 3 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	switch resp.StatusCode {
	case http.StatusOK:
		return nil
	case http.StatusNotFound:
		return fmt.Errorf("GET %s = %w", url, errNotFound)
	}
	return fmt.Errorf("GET %s = %d", url, resp.StatusCode)
}
