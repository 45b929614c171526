package host_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/host"
)

// Config.GraphQLAllowPrivateURLs decides whether addFileFromUrl may fetch
// from a loopback address (the caller reads the environment, not the host).
func TestGraphQLAllowPrivateURLs(t *testing.T) {
	t.Parallel()
	file := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("hello"))
	}))
	defer file.Close()
	mutation := gqlBody(`mutation { products(name: {is: "plum"}) { addFileFromUrl(name: "f.txt", url: "` + file.URL + `") { message } } }`)
	for _, allow := range []bool{false, true} {
		e := newGQLEnv(t, "sqlite::memory:", host.Config{GraphQLAllowPrivateURLs: allow})
		status, body, _ := e.post(t, "/api/graphql/space/shop", mutation, true)
		refused := strings.Contains(body, "not public")
		if status != 200 || refused == allow || !refused && !strings.Contains(body, "attached f.txt") {
			t.Errorf("GraphQLAllowPrivateURLs %v: %d %s", allow, status, body)
		}
	}
}
