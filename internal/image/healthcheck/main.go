// Command healthcheck is the health check of an app's container image:
// distroless and empty bases have no shell or curl, so the image carries
// this small static program and declares it as its HEALTHCHECK. It sends
// GET / to the app on 127.0.0.1:$PORT (default 8080) and exits 0 when the
// app answers 200 within 3 seconds, 1 otherwise.
package main

import (
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
	if err := check("http://127.0.0.1:" + port + "/"); err != nil {
		fmt.Fprintln(os.Stderr, "healthcheck:", err)
		os.Exit(1)
	}
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
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s = %d", url, resp.StatusCode)
	}
	return nil
}
