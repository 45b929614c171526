// Command imageapp is a stand-in app for the tests of "appkit image": it
// answers GET / on $PORT.
package main

import (
	"net/http"
	"os"
)

func main() {
	_ = http.ListenAndServe(":"+os.Getenv("PORT"), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"id":"imageapp"}`))
	}))
}
