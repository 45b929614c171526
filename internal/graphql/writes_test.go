package graphql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/commands"
	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
)

// Templates, filled texts and per-entity copies are bounded: a short
// request cannot make the host write (or hold) much more than a command
// request could carry.
func TestWritesAreBounded(t *testing.T) {
	t.Parallel()
	if MaxWriteBytes != commands.MaxBodyBytes {
		t.Errorf("MaxWriteBytes %d, want the command API's body bound %d", MaxWriteBytes, commands.MaxBodyBytes)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("f", 600))
	}))
	t.Cleanup(srv.Close)
	long := strings.Repeat("n", 16<<10)
	cases := []struct {
		name string
		cfg  Config
		// query runs on the four tasks, one of them named long.
		query string
		vars  map[string]any
		want  string
	}{
		{"a filled text over MaxTextBytes", Config{}, `mutation { tasks { addComment(value: "` + strings.Repeat("{{name}}", 70) + `") { message } } }`, nil,
			fmt.Sprintf("the filled text would be longer than %d bytes", MaxTextBytes)},
		{"too many references", Config{}, `mutation { tasks { addComment(value: "` + strings.Repeat("{{me.email}}", MaxTemplateRefs+1) + `") { message } } }`, nil,
			fmt.Sprintf("the template holds more than %d {{references}}", MaxTemplateRefs)},
		{"a long template", Config{}, `mutation($v: String!) { tasks { addComment(value: $v) { message } } }`, map[string]any{"v": strings.Repeat("x", MaxTemplateBytes+1)},
			fmt.Sprintf("the template is longer than %d bytes", MaxTemplateBytes)},
		{"comments on every entity", Config{MaxWriteBytes: 1000}, `mutation { tasks { addComment(value: "` + strings.Repeat("c", 300) + `") { message } } }`, nil,
			"the request would write more than 1000 bytes"},
		{"filled texts held for every entity", Config{MaxWriteBytes: 10 << 10}, `mutation { tasks { addComment(value: "{{name}}") { message } } }`, nil,
			"the texts filled for 4 entities would be larger than 10240 bytes"},
		{"rich text growing by appends", Config{}, `mutation($n: String!) { tasks(name: {is: $n}) { a: appendContentToNotes(value: "` + strings.Repeat("{{name}}", 60) + `") { message } b: appendContentToNotes(value: "` + strings.Repeat("{{name}}", 60) + `") { message } } }`,
			map[string]any{"n": long}, fmt.Sprintf("the notes document would be longer than %d bytes", MaxTextBytes)},
		{"notifications to every recipient", Config{MaxWriteBytes: 1000}, `mutation { tasks(name: {is: "Fix bug"}) { notifyUsers(to: ["a@x.org", "b@x.org", "c@x.org", "d@x.org"], subject: "s", message: "` + strings.Repeat("m", 300) + `") { message } } }`, nil,
			"the request would write more than 1000 bytes"},
		{"a PDF's text", Config{}, `mutation { tasks { attachPdfUsingTemplate(value: "` + strings.Repeat("{{name}}", 5) + `") { message } } }`, nil,
			fmt.Sprintf("the filled text would be longer than %d bytes", MaxPdfTextBytes)},
		{"a file on every entity", Config{MaxWriteBytes: 1000, AllowPrivateURLs: true}, `mutation { tasks { addFileFromUrl(name: "f.txt", url: "` + srv.URL + `") { message } } }`, nil,
			"the request would write more than 1000 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			svc := trackerService(t, c.cfg)
			if got := run(t, svc, "tracker", `mutation($n: String!) { tasks(name: {is: "idle"}) { update(name: $n) { message } } }`, map[string]any{"n": long}); strings.Contains(got, "errors") {
				t.Fatal(got)
			}
			before := run(t, svc, "tracker", `{ findTasks { comments { md } files { size } notes { md } } me { notifications { message } } }`, nil)
			got := run(t, svc, "tracker", c.query, c.vars)
			if !strings.Contains(got, c.want) || !strings.Contains(got, `"code":"WRITE_TOO_LARGE"`) || !strings.Contains(got, `"data":{"tasks":null}`) {
				t.Fatalf("got %.300s\nwant %q", got, c.want)
			}
			if after := run(t, svc, "tracker", `{ findTasks { comments { md } files { size } notes { md } } me { notifications { message } } }`, nil); after != before {
				t.Errorf("the refused group wrote: %.300s", after)
			}
		})
	}
}

// What the rows of an answer point at (documents, comments) is read within
// the bound of what it is read for: the answer's data, or what a request
// may write when the documents are read to be changed.
func TestLoadsAreBounded(t *testing.T) {
	t.Parallel()
	svc := trackerService(t, Config{MaxWriteBytes: 4000})
	big := strings.Repeat("b", 3000)
	if got := run(t, svc, "tracker", `mutation($v: String!) { tasks(name: {is: "Fix bug"}) { overwriteContentOfNotes: appendContentToNotes(value: $v) { message } } }`, map[string]any{"v": big}); strings.Contains(got, "errors") {
		t.Fatal(got)
	}
	got := run(t, svc, "tracker", `mutation { tasks(name: {is: "Fix bug"}) { a: appendContentToNotes(value: "x") { message } b: appendContentToNotes(value: "y") { message } } }`, nil)
	if !strings.Contains(got, "the notes documents to change are larger than the 4000 bytes one request may write") {
		t.Errorf("appends past the write bound: %s", got)
	}
	e := &executor{svc: svc, ctx: context.Background(), answer: query.NewBudget(1000, 0)}
	ld := e.answerLoader()
	write(t, svc.cfg.Store, func(tx *store.Tx) error {
		cat := tx.Catalog()
		secrets, err := tx.DocumentSecrets(cat.Type("tracker/task"), cat.Type("tracker/task").Field("tracker.task/notes"), []string{idT2})
		if err != nil {
			return err
		}
		ld.wantDoc(secrets[idT2])
		return nil
	})
	if err := ld.load(context.Background(), svc); !errors.Is(err, query.ErrAnswerTooLarge) || len(ld.docs) != 0 {
		t.Errorf("a 3000-byte document read for 1000 bytes of answer: %v, %d documents", err, len(ld.docs))
	}
}
