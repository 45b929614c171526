package syncer

import (
	"context"
	"fmt"
	"io"
	"net/http"
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
	srv := stubApp(t, "pipe", "Pipe", `{"types":[{"id":"item","name":"Items"}]}`,
		`{"item":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}}}`,
		func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			n := 1
			if i := strings.Index(string(body), `"pagination":{"n":`); i >= 0 {
				fmt.Sscanf(string(body[i+len(`"pagination":{"n":`):]), "%d", &n)
			}
			once[n].Do(func() { close(asked[n]) })
			fmt.Fprintf(w, `{"items":[{"id":"i%d","name":"Item %d"}],"pagination":{"hasNext":%v,"nextPageConfig":{"n":%d}}}`, n, n, n < pages, n+1)
		})
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
