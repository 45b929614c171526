package syncer

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// The run is a pipeline: the app is asked for the next page while the
// current one is being written, and still each page commits with the
// position after it (a page is written only once the one before is).
func TestNextPageFetchedWhileWriting(t *testing.T) {
	t.Parallel()
	const pages = 4
	asked := make([]chan struct{}, pages+1) // closed when page n is asked for
	for i := range asked {
		asked[i] = make(chan struct{})
	}
	var once [pages + 1]sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/":
			io.WriteString(w, `{"id":"pipe","name":"Pipe","authentication":[{"id":"none","name":"None"}],"responsibleFor":{"dataSynchronization":true}}`)
		case "/logo":
			w.WriteHeader(http.StatusNoContent)
		case "/validate":
			io.WriteString(w, `{"name":"account"}`)
		case "/api/v1/synchronizer/config":
			io.WriteString(w, `{"types":[{"id":"item","name":"Items"}]}`)
		case "/api/v1/synchronizer/schema":
			io.WriteString(w, `{"item":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}}}`)
		case "/api/v1/synchronizer/data":
			body, _ := io.ReadAll(r.Body)
			n := 1
			if i := strings.Index(string(body), `"pagination":{"n":`); i >= 0 {
				fmt.Sscanf(string(body[i+len(`"pagination":{"n":`):]), "%d", &n)
			}
			once[n].Do(func() { close(asked[n]) })
			fmt.Fprintf(w, `{"items":[{"id":"i%d","name":"Item %d"}],"pagination":{"hasNext":%v,"nextPageConfig":{"n":%d}}}`, n, n, n < pages, n+1)
		}
	}))
	defer srv.Close()
	st := openTestStore(t)
	e, err := newEngine(st, Options{AppURL: srv.URL, CommitItems: 1})
	if err != nil {
		t.Fatal(err)
	}
	written := 0
	e.beforeWrite = func() {
		written++
		if written == pages {
			return
		}
		// Page `written` is about to be written: the next one is on its way.
		select {
		case <-asked[written+1]:
		case <-time.After(time.Minute):
			t.Errorf("page %d was not asked for while page %d was written", written+1, written)
		}
	}
	rep, err := e.bounded(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if tr := rep.Types[0]; tr.Pages != pages || tr.Created != pages {
		t.Errorf("report: %+v", tr)
	}
}
