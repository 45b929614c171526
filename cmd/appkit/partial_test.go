package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/syncer"
)

// rawApp serves a synchronization app written with net/http only, with
// the config and schema given and data answering each requested type's
// data call; it returns the app's URL.
func rawApp(t *testing.T, config, schema string, data func(typ string) string) string {
	t.Helper()
	const descriptor = `{"id":"raw","name":"Raw","version":"1","description":"d","website":"https://example.com",
	"authentication":[{"id":"none","name":"None"}],"sources":[],"responsibleFor":{"dataSynchronization":true}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		reply := func(status int, s string) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, s)
		}
		switch r.URL.Path {
		case "/":
			reply(200, descriptor)
		case "/logo":
			w.WriteHeader(http.StatusNoContent)
		case "/validate":
			reply(200, `{"name":"raw account"}`)
		case "/api/v1/synchronizer/config":
			reply(200, config)
		case "/api/v1/synchronizer/schema":
			reply(200, schema)
		case "/api/v1/synchronizer/data":
			var req struct {
				RequestedType string `json:"requestedType"`
			}
			if json.Unmarshal(body, &req) != nil {
				reply(400, `{"message":"bad body"}`)
				return
			}
			reply(200, data(req.RequestedType))
		default:
			reply(404, `{"message":"not found"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// A type whose page is malformed (items an object) fails alone: the other
// type is synchronized, the summary names the failed type with its reason
// and the status of each, and the run exits 3 (partial).
func TestSyncCommandPartial(t *testing.T) {
	appURL := rawApp(t, `{"types":[{"id":"fine","name":"Fine"},{"id":"broken","name":"Broken"}],"filters":[]}`,
		`{"fine":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}},
		  "broken":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"}}}`,
		func(typ string) string {
			if typ == "broken" {
				return `{"items":{"id":"1","name":"not a list"},"synchronizationType":"full","pagination":{"hasNext":false}}`
			}
			return `{"items":[{"id":"a","name":"A"},{"id":"b","name":"B"}],"synchronizationType":"full","pagination":{"hasNext":false}}`
		})
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"sync", "--store", dsn, "--app", appURL, "--types", "fine,broken"}, &out, &errb)
	if code != exitPartial {
		t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, exitPartial, out.String(), errb.String())
	}
	for _, re := range []string{
		`type\s+status\s+mode\s+pages\s+items\s+created`,
		`(?m)^\s*fine\s+completed\s+full\s+1\s+2\s+2\s+0\s+0\s+0\s+0\s*$`,
		`(?m)^\s*broken\s+failed\s`,
		`(?m)^broken failed: \S.*$`,
	} {
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("the summary lacks %s:\n%s", re, out.String())
		}
	}
	if strings.Contains(out.String(), "fine failed") {
		t.Errorf("the completed type is reported failed:\n%s", out.String())
	}
	if !strings.Contains(errb.String(), syncer.ErrPartial.Error()) {
		t.Errorf("stderr does not say the run was partial:\n%s", errb.String())
	}
}

// Values that do not fit their field are converted (a locale date-time)
// or left empty (a number that is not one), the items kept: the summary
// says so in one line per field, with the count and the first value.
func TestSyncCommandValueLines(t *testing.T) {
	appURL := rawApp(t, `{"types":[{"id":"task","name":"Tasks"}],"filters":[]}`,
		`{"task":{"id":{"id":"id","name":"ID","type":"id"},"name":{"id":"name","name":"Name","type":"text"},
		  "due":{"id":"due","name":"Due","type":"date"},"size":{"id":"size","name":"Size","type":"number"}}}`,
		func(string) string {
			return `{"items":[
			  {"id":"1","name":"one","due":"11/14/2023, 10:13 PM","size":"big"},
			  {"id":"2","name":"two","due":"11/15/2023, 9:00 AM","size":3},
			  {"id":"3","name":"three","due":"2023-11-16T10:00:00Z","size":"huge"}],
			  "synchronizationType":"full","pagination":{"hasNext":false}}`
		})
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"sync", "--store", dsn, "--app", appURL}, &out, &errb)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{
		`task.due: 2 values coerced (a month-first locale date-time`,
		`, e.g. "11/14/2023, 10:13 PM"`,
		`task.size: 2 values left empty (want a number`,
		`, e.g. "big"`,
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, out.String())
		}
	}
	// One line per field, not per item; every item is stored.
	if n := strings.Count(out.String(), "task.due:"); n != 1 {
		t.Errorf("%d lines for task.due:\n%s", n, out.String())
	}
	if !regexp.MustCompile(`(?m)^\s*task\s+completed\s+full\s+1\s+3\s+3\s+0\s+0\s+0\s+0\s*$`).MatchString(out.String()) {
		t.Errorf("not every item was stored:\n%s", out.String())
	}
}

// The summary's lines, from a report as the engine makes it: the status
// column (a type not reached shows "-"), a line per failed type with its
// reason, a line per field and outcome.
func TestPrintReportOutcomes(t *testing.T) {
	t.Parallel()
	rep := &syncer.Report{App: "Tracker", Space: "tracker", OperationID: "op", Types: []*syncer.TypeReport{
		{Type: "project", Status: syncer.TypeCompleted, Mode: "full", Pages: 1, Items: 2, Created: 2},
		{Type: "task", Status: syncer.TypeCompleted, Mode: "full", Pages: 3, Items: 1500, Created: 1500, Values: []*syncer.ValueReport{
			{Field: "due", Outcome: syncer.ValueCoerced, Count: 1203, Detail: "a month-first locale date-time (M/D/YYYY[, h:mm[:ss] AM/PM]), read as UTC", Example: `"11/14/2023, 10:13 PM"`},
			{Field: "size", Outcome: syncer.ValueDropped, Count: 7, Detail: `want a number, got "big"`, Example: `"big"`},
			{Field: "points", Outcome: syncer.ValueDropped, Count: 1, Example: `true`},
		}},
		{Type: "comment", Status: syncer.TypeFailed, Error: "the app's pagination loops: the cursor {\"p\":2} came twice", Mode: "full", Pages: 2, Items: 40, Created: 40},
		{Type: "label"},
	}}
	var b bytes.Buffer
	printReport(&b, rep)
	out := b.String()
	for _, re := range []string{
		`(?m)^\s*type\s+status\s+mode\s+pages\s+items\s+created\s+updated\s+unchanged\s+removed\s+skipped\s*$`,
		`(?m)^\s*project\s+completed\s+full\s+1\s+2\s+2\s`,
		`(?m)^\s*comment\s+failed\s+full\s+2\s+40\s+40\s`,
		`(?m)^\s*label\s+-\s+0\s+0\s`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("the table lacks %s:\n%s", re, out)
		}
	}
	for _, line := range []string{
		`comment failed: the app's pagination loops: the cursor {"p":2} came twice`,
		`task.due: 1203 values coerced (a month-first locale date-time (M/D/YYYY[, h:mm[:ss] AM/PM]), read as UTC), e.g. "11/14/2023, 10:13 PM"`,
		`task.size: 7 values left empty (want a number, got "big"), e.g. "big"`,
		`task.points: 1 value left empty, e.g. true`,
	} {
		if !strings.Contains(out, "\n"+line+"\n") {
			t.Errorf("the summary lacks the line %q:\n%s", line, out)
		}
	}
	if strings.Contains(out, "project failed") || strings.Contains(out, "label failed") {
		t.Errorf("a type that did not fail is reported failed:\n%s", out)
	}
}

// appkit dev's summary of a run has the same status column and lines,
// indented.
func TestPrintDevReportOutcomes(t *testing.T) {
	t.Parallel()
	rep := &apps.RunReport{Types: []*syncer.TypeReport{
		{Type: "note", Status: syncer.TypeCompleted, Updated: 120, Values: []*syncer.ValueReport{
			{Field: "words", Outcome: syncer.ValueDropped, Count: 3, Detail: `want a number, got "many"`, Example: `"many"`}}},
		{Type: "tag", Status: syncer.TypeFailed, Error: "delivered 4 items and stored none"},
	}}
	var b bytes.Buffer
	printDevReport(&b, rep, nil)
	out := b.String()
	for _, re := range []string{
		`(?m)^\s+type\s+status\s+created\s+updated\s+unchanged\s+removed\s+skipped\s*$`,
		`(?m)^\s+note\s+completed\s+0\s+120\s+0\s+0\s+0\s*$`,
		`(?m)^\s+tag\s+failed\s+0\s+0\s+0\s+0\s+0\s*$`,
		`(?m)^  tag failed: delivered 4 items and stored none$`,
		`(?m)^  note\.words: 3 values left empty \(want a number, got "many"\), e\.g\. "many"$`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("the summary lacks %s:\n%s", re, out)
		}
	}
}
