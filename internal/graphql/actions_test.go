package graphql

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/store"
)

func runAs(t *testing.T, svc *Service, who Viewer, q string) string {
	t.Helper()
	resp, err := svc.Execute(context.Background(), "tracker", who, &Request{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := resp.MarshalJSON()
	return string(b)
}

func TestNotifications(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		svc := newTracker(t, st)
		bob := Viewer{ID: "u2", Email: "bob@example.com"}
		steps := []struct {
			who         Viewer
			query, want string
		}{
			{bob, `mutation { tasks { create(name: "Bob's") { message } } }`, `{"data":{"tasks":{"create":{"message":"created 1 Tasks"}}}}`},
			{viewer, `mutation { tasks(name: {in: ["Fix bug", "Bob's"]}) { assignToMe { message } } }`, `{"data":{"tasks":{"assignToMe":{"message":"assigned ann@example.com to 2 Tasks"}}}}`},
			{viewer, `mutation { tasks(name: {is: "Fix bug"}) { assignToMe { message } } }`, `{"data":{"tasks":{"assignToMe":{"message":"assigned ann@example.com to 1 Tasks"}}}}`},
			{bob, `mutation { tasks(name: {is: "Fix bug"}) { assignToMe { message } listEntities { assignees } } }`, `{"data":{"tasks":{"assignToMe":{"message":"assigned bob@example.com to 1 Tasks"},"listEntities":[{"assignees":["ann@example.com","bob@example.com"]}]}}}`},
			{bob, `mutation { tasks(name: {is: "Fix bug"}) { notifyAssignees(subject: "{{name}}", message: "points: {{points}}") { message } } }`, `{"data":{"tasks":{"notifyAssignees":{"message":"sent 2 notifications about 1 Tasks"}}}}`},
			{viewer, `mutation { tasks(name: {in: ["Bob's", "idle"]}) { notifyCreatedBy(subject: "About {{name}}", message: "from {{me.email}}") { message } } }`, `{"data":{"tasks":{"notifyCreatedBy":{"message":"sent 1 notifications about 2 Tasks"}}}}`},
			{viewer, `mutation { labels(name: {is: "red"}) { notifyUsers(to: ["Carol@Example.com", "bob@example.com", "bob@example.com"], subject: "s", message: "m") { message } } }`, `{"data":{"labels":{"notifyUsers":{"message":"sent 2 notifications about 1 Labels"}}}}`},
			{viewer, `mutation { labels { notifyUsers(to: ["not an address"], subject: "s", message: "m") { message } } }`, `{"errors":[{"message":"to: \"not an address\" is not an e-mail address","locations":[{"line":1,"column":21}],"path":["labels","notifyUsers"],"extensions":{"code":"BAD_USER_INPUT"}}],"data":{"labels":null}}`},
			{bob, `{ me { notifications { subject message sender entity { type } } } }`, `{"data":{"me":{"notifications":[{"subject":"s","message":"m","sender":"ann@example.com","entity":{"type":"Labels"}},{"subject":"About Bob's","message":"from ann@example.com","sender":"ann@example.com","entity":{"type":"Tasks"}},{"subject":"Fix bug","message":"points: 5","sender":"bob@example.com","entity":{"type":"Tasks"}}]}}}`},
			{viewer, `{ me { notifications(limit: 1) { subject } } }`, `{"data":{"me":{"notifications":[{"subject":"Fix bug"}]}}}`},
		}
		for i, s := range steps {
			if got := runAs(t, svc, s.who, s.query); got != s.want {
				t.Errorf("step %d %s:\n got %s\nwant %s", i, s.query, got, s.want)
			}
		}
	})
}

func TestFiles(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		trackerSchema(t, st)
		trackerData(t, st)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch r.URL.Path {
			case "/a.txt":
				w.Header().Set("Content-Type", "text/plain")
				io.WriteString(w, "hello file")
			case "/big":
				w.Write(make([]byte, 2000))
			case "/redirect":
				http.Redirect(w, r, "/a.txt", http.StatusFound)
			default:
				http.NotFound(w, r)
			}
		}))
		defer srv.Close()
		strict := mustNew(t, Config{Store: st})
		got := run(t, strict, "tracker", `mutation { tasks(name: {is: "idle"}) { addFileFromUrl(name: "a.txt", url: "`+srv.URL+`/a.txt") { message } } }`, nil)
		if !strings.Contains(got, "is private, loopback or otherwise not public") {
			t.Errorf("loopback allowed: %s", got)
		}
		got = run(t, strict, "tracker", `mutation { tasks(name: {is: "idle"}) { addFileFromUrl(name: "a.txt", url: "file:///etc/passwd") { message } } }`, nil)
		if !strings.Contains(got, "url must be an http or https address") {
			t.Errorf("file url: %s", got)
		}
		svc := mustNew(t, Config{Store: st, AllowPrivateURLs: true, MaxFileBytes: 1000})
		for _, c := range []struct{ q, want string }{
			{`addFileFromUrl(name: "a.txt", url: "` + srv.URL + `/redirect") { message }`, `"message":"attached a.txt (10 bytes) to 1 Tasks"`},
			{`addFileFromUrl(name: "big", url: "` + srv.URL + `/big") { message }`, `the file is larger than 1000 bytes`},
			{`addFileFromUrl(name: "x", url: "` + srv.URL + `/missing") { message }`, `answered 404`},
			{`addFileFromUrl(name: "../x", url: "` + srv.URL + `/a.txt") { message }`, `name must be a file name`},
			{`attachPdfUsingTemplate(value: "Task {{name}}\n\nSchön, déjà vu", name: "report") { message }`, `"message":"attached report.pdf to 1 Tasks"`},
		} {
			got := run(t, svc, "tracker", `mutation { tasks(name: {is: "idle"}) { `+c.q+` } }`, nil)
			if !strings.Contains(got, c.want) {
				t.Errorf("%s:\n got %s\nwant %s", c.q, got, c.want)
			}
		}
		got = run(t, svc, "tracker", `{ findTasks(name: {is: "idle"}) { files { id name contentType size url } } }`, nil)
		if !strings.Contains(got, `"name":"a.txt","contentType":"text/plain","size":10,"url":"/api/graphql/files/`) || !strings.Contains(got, `"name":"report.pdf","contentType":"application/pdf"`) {
			t.Fatalf("files: %s", got)
		}
		for _, name := range []string{"a.txt", "report.pdf"} {
			i := strings.Index(got, `"name":"`+name+`"`)
			id := got[strings.LastIndex(got[:i], `"id":"`)+6:]
			id = id[:36]
			rec := httptest.NewRecorder()
			svc.ServeFile(rec, httptest.NewRequest("GET", "/api/graphql/files/"+id, nil), id)
			body := rec.Body.String()
			switch name {
			case "a.txt":
				if rec.Code != 200 || body != "hello file" || !strings.Contains(rec.Header().Get("Content-Disposition"), `attachment; filename=a.txt`) {
					t.Errorf("serve a.txt: %d %q %v", rec.Code, body, rec.Header())
				}
			case "report.pdf":
				if rec.Code != 200 || !strings.HasPrefix(body, "%PDF-1.") || !strings.Contains(body, "%%EOF") || rec.Header().Get("Content-Type") != "application/pdf" {
					t.Errorf("serve report.pdf: %d %.40q", rec.Code, body)
				}
			}
		}
		rec := httptest.NewRecorder()
		svc.ServeFile(rec, httptest.NewRequest("GET", "/x", nil), "00000000-0000-0000-0000-000000000000")
		if rec.Code != 404 {
			t.Errorf("missing file: %d", rec.Code)
		}
		// Deleting the entity deletes its files.
		run(t, svc, "tracker", `mutation { tasks(name: {is: "idle"}) { delete { message } } }`, nil)
		var n int
		st.DB().QueryRow("SELECT COUNT(*) FROM entity_files").Scan(&n)
		if n != 0 {
			t.Errorf("%d files left after delete", n)
		}
	})
}

func TestBlockedAddresses(t *testing.T) {
	t.Parallel()
	for addr, blocked := range map[string]bool{
		"127.0.0.1": true, "10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true, "169.254.169.254": true, "0.0.0.0": true,
		"100.64.0.1": true, "::1": true, "fe80::1": true, "fc00::1": true, "::ffff:127.0.0.1": true, "224.0.0.1": true,
		"8.8.8.8": false, "1.1.1.1": false, "2606:4700:4700::1111": false, "93.184.216.34": false,
	} {
		if got := blockedAddr(netip.MustParseAddr(addr)); got != blocked {
			t.Errorf("%s: blocked %v, want %v", addr, got, blocked)
		}
	}
}

func TestMoveToFinalState(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, st *store.Store) {
		svc := newTracker(t, st)
		if got := run(t, svc, "tracker", `mutation { tasks { moveToFinalState { message } } }`, nil); !strings.Contains(got, `Cannot query field \"moveToFinalState\"`) {
			t.Errorf("without the workflow mixin: %s", got)
		}
		if err := st.WriteSchema(context.Background(), func(tx *store.Tx) error {
			if err := tx.InstallMixins(map[string][]string{"tracker/task": {WorkflowMixin}}); err != nil {
				return err
			}
			return tx.SetFieldMeta("tracker/task", "tracker.task/status", "workflow/final-state", "Done")
		}); err != nil {
			t.Fatal(err)
		}
		got := run(t, svc, "tracker", `mutation { tasks(status: {name: {is: "Open"}}) { moveToFinalState { message } } }`, nil)
		if got != `{"data":{"tasks":{"moveToFinalState":{"message":"moved 2 Tasks to Done"}}}}` {
			t.Errorf("moveToFinalState: %s", got)
		}
		if got := run(t, svc, "tracker", `{ findTasks(status: {name: {is: "Done"}}) { name } }`, nil); got != `{"data":{"findTasks":[{"name":"Write docs"},{"name":"Fix bug"},{"name":"Plan release"}]}}` {
			t.Errorf("after: %s", got)
		}
	})
}
