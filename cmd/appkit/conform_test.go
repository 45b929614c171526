package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/examples/tracker/tracker"
)

var summaryLine = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed, (\d+) skipped`)

func TestConformPassingApp(t *testing.T) {
	t.Parallel()
	appURL := serveTracker(t, tracker.Config{})
	junit := filepath.Join(t.TempDir(), "report.xml")
	var out, errb bytes.Buffer
	// flags before and after the URL
	code := run(context.Background(), []string{"conform", "--account", "token=" + tracker.DemoToken, appURL, "--types", "project,task", "--junit", junit}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out.String(), errb.String())
	}
	m := summaryLine.FindStringSubmatch(out.String())
	if m == nil || m[2] != "0" || m[1] == "0" {
		t.Fatalf("no summary line with passes and no failures:\n%s", out.String())
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &suites); err != nil || len(suites.Suites) != 1 || suites.Suites[0].Tests == 0 || suites.Suites[0].Failures != 0 {
		t.Fatalf("junit report %+v, %v:\n%s", suites, err, b)
	}
}

func TestConformFailingApp(t *testing.T) {
	t.Parallel()
	// An app whose every answer is an HTML page.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<html>hello</html>"))
	}))
	t.Cleanup(srv.Close)
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"conform", srv.URL, "--json"}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s\n%s", code, out.String(), errb.String())
	}
	var rep struct {
		Failed  int `json:"failed"`
		Results []struct {
			ID       string `json:"id"`
			Status   string `json:"status"`
			Rule     string `json:"rule"`
			Expected string `json:"expected"`
			Got      string `json:"got"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out.String())
	}
	if rep.Failed == 0 {
		t.Fatalf("no failure reported: %s", out.String())
	}
	for _, r := range rep.Results {
		if r.Status == "failed" && (r.Rule == "" || r.Expected == "" || r.Got == "") {
			t.Errorf("failed result without rule, expected or got: %+v", r)
		}
		if r.ID == "descriptor.answer" && r.Status != "failed" {
			t.Errorf("descriptor.answer %s, want failed", r.Status)
		}
	}
}

func TestConformUsage(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"conform"},
		{"conform", "http://a", "http://b"},
		{"conform", "--account", "novalue", "http://a"},
		{"conform", "ftp://a"},
		{"conform", "--nope", "http://a"},
		{"conform", "--timeout", "0s", "http://a"},
		{"conform", "--max-types", "-1", "http://a"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), args, &out, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2 (stderr %q)", args, code, errb.String())
		}
		if !strings.Contains(errb.String(), "appkit conform") {
			t.Errorf("%q: stderr does not name the command: %q", args, errb.String())
		}
	}
}

// hostileApp is an app of 10,000 types. Its data pages follow its mode:
// "one" answers one item and ends; "endless" never ends (a new cursor on
// every page); "hang" never answers. hung is closed at the first data
// request.
type hostileApp struct {
	mode string
	hung chan struct{}
	once sync.Once
}

const hostileTypes = 10000

func newHostileApp(t *testing.T, mode string) (*hostileApp, *httptest.Server) {
	t.Helper()
	app := &hostileApp{mode: mode, hung: make(chan struct{})}
	srv := httptest.NewServer(app)
	t.Cleanup(srv.Close)
	return app, srv
}

func (h *hostileApp) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Types      []string        `json:"types"`
		Pagination json.RawMessage `json:"pagination"`
	}
	_ = json.NewDecoder(r.Body).Decode(&in)
	reply := func(v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	switch r.URL.Path {
	case "/":
		reply(map[string]any{"id": "hostile", "type": "custom", "name": "Hostile", "version": "1", "description": "d",
			"website": "https://example.com", "authentication": []any{map[string]any{"id": "none", "name": "None"}},
			"sources": []any{}, "responsibleFor": map[string]any{"dataSynchronization": true}, "actions": []any{}})
	case "/validate":
		reply(map[string]any{"name": "anyone"})
	case "/api/v1/synchronizer/config":
		types := make([]any, hostileTypes)
		for i := range types {
			types[i] = map[string]any{"id": fmt.Sprintf("t%d", i), "name": fmt.Sprintf("Type %d", i)}
		}
		reply(map[string]any{"types": types, "filters": []any{}})
	case "/api/v1/synchronizer/schema":
		out := map[string]any{}
		for _, t := range in.Types {
			out[t] = map[string]any{"id": map[string]any{"name": "ID", "type": "id"}, "name": map[string]any{"name": "Name", "type": "text"}}
		}
		reply(out)
	case "/api/v1/synchronizer/data":
		h.once.Do(func() { close(h.hung) })
		switch h.mode {
		case "hang":
			<-r.Context().Done()
		case "endless":
			var cur struct{ N int }
			_ = json.Unmarshal(in.Pagination, &cur)
			reply(map[string]any{"items": []any{}, "synchronizationType": "full",
				"pagination": map[string]any{"hasNext": true, "nextPageConfig": map[string]any{"n": cur.N + 1}}})
		default:
			reply(map[string]any{"items": []any{map[string]any{"id": "1", "name": "one"}}, "synchronizationType": "full"})
		}
	default:
		http.NotFound(w, r)
	}
}

// jsonReport is what the tests read of a --json report.
type jsonReport struct {
	Stopped string `json:"stopped"`
	Failed  int    `json:"failed"`
	Skipped int    `json:"skipped"`
	Results []struct {
		ID      string `json:"id"`
		Subject string `json:"subject"`
		Status  string `json:"status"`
		Why     string `json:"why"`
	} `json:"results"`
}

func decodeReport(t *testing.T, out []byte) jsonReport {
	t.Helper()
	var rep jsonReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out)
	}
	return rep
}

// 10,000 types: the run walks the first --max-types (default 50) of them,
// says so, and shows its progress on stderr.
func TestConformManyTypes(t *testing.T) {
	t.Parallel()
	_, srv := newHostileApp(t, "one")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"conform", srv.URL, "--json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, errb.String())
	}
	rep := decodeReport(t, out.Bytes())
	walked := map[string]bool{}
	bounded := false
	for _, r := range rep.Results {
		if r.ID == conformance.CheckPageShape && r.Status == "passed" {
			walked[r.Subject] = true
		}
		if r.ID == conformance.CheckPageShape && r.Status == "skipped" && r.Subject == fmt.Sprintf("%d more types", hostileTypes-conformance.DefaultMaxTypes) {
			bounded = true
		}
	}
	if len(walked) != conformance.DefaultMaxTypes || !bounded {
		t.Errorf("walked %d types, want %d and a skip naming the %d others", len(walked), conformance.DefaultMaxTypes, hostileTypes-conformance.DefaultMaxTypes)
	}
	progress := errb.String()
	for _, want := range []string{"conform: descriptor\n", "conform:   PASS descriptor.answer\n",
		fmt.Sprintf("conform: data 1/%d: t0\n", conformance.DefaultMaxTypes), "conform:   PASS data.page [t0]\n"} {
		if !strings.Contains(progress, want) {
			t.Errorf("stderr lacks the progress line %q:\n%s", want, progress)
		}
	}
	if strings.Contains(progress, fmt.Sprintf("data %d/", conformance.DefaultMaxTypes+1)) {
		t.Errorf("progress shows a type beyond the bound")
	}
}

// A run over 10,000 types whose pages never end stops at --timeout with a
// partial report and exit status 3.
func TestConformTimeout(t *testing.T) {
	t.Parallel()
	_, srv := newHostileApp(t, "endless")
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"conform", srv.URL, "--json", "--quiet", "--timeout", "1s", "--max-pages", "100000000"}, &out, &errb)
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s", code, errb.String())
	}
	rep := decodeReport(t, out.Bytes())
	if !strings.Contains(rep.Stopped, "1s") {
		t.Errorf("stopped %q, want the bound named", rep.Stopped)
	}
	if !strings.Contains(errb.String(), "stopped before the end") || strings.Contains(errb.String(), "conform: descriptor") {
		t.Errorf("stderr (with --quiet) %q, want only the stop", errb.String())
	}
}

// Cancelling the context the command runs under (what SIGINT and SIGTERM
// do, see main) stops the run at once with the partial report.
func TestConformInterrupted(t *testing.T) {
	t.Parallel()
	app, srv := newHostileApp(t, "hang")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-app.hung
		cancel()
	}()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"conform", srv.URL}, &out, &errb)
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s", code, errb.String())
	}
	checkPartialText(t, out.String())
}

// checkPartialText checks a text report of a run stopped in the data stage.
func checkPartialText(t *testing.T, report string) {
	t.Helper()
	for _, want := range []string{"PASS  descriptor.answer", "PASS  schema.types", "STOPPED before the end, the report is partial: interrupted"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q:\n%s", want, report)
		}
	}
	if strings.Contains(report, "FAIL") {
		t.Errorf("the interruption failed checks:\n%s", report)
	}
}

// conformChildURL, set, makes TestConformSignalChild run appkit conform
// against that URL as main does, signals and all.
const conformChildURL = "APPKIT_CONFORM_CHILD_URL"

func TestConformSignalChild(t *testing.T) {
	url, ok := os.LookupEnv(conformChildURL)
	if !ok {
		t.Skip("run by TestConformSignal in a child process")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, []string{"conform", "--quiet", url}, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// SIGINT and SIGTERM sent to a running appkit conform stop it with the
// partial report and exit status 3 (the command runs in a child process
// of the test binary, as main runs it).
func TestConformSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			app, srv := newHostileApp(t, "hang")
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestConformSignalChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), conformChildURL+"="+srv.URL)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-app.hung:
			case <-time.After(2 * time.Minute):
				t.Fatalf("the child never reached the data stage:\n%s", errb.String())
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 3 {
				t.Fatalf("the child ended with %v, want exit status 3\n%s", err, errb.String())
			}
			checkPartialText(t, out.String())
		})
	}
}

// publicApp is an app whose one authentication has no fields: its data is
// public, and any account reads it.
func publicApp(w http.ResponseWriter, r *http.Request) {
	reply := func(v any) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(v)
	}
	switch r.URL.Path {
	case "/":
		reply(map[string]any{"id": "public", "type": "custom", "name": "Public", "version": "1", "description": "d",
			"website": "https://example.com", "authentication": []any{map[string]any{"id": "public", "name": "Public data", "fields": []any{}}},
			"sources": []any{}, "responsibleFor": map[string]any{"dataSynchronization": true}, "actions": []any{}})
	case "/validate":
		reply(map[string]any{"name": "anyone"})
	case "/api/v1/synchronizer/config":
		reply(map[string]any{"types": []any{map[string]any{"id": "item", "name": "Items"}}})
	case "/api/v1/synchronizer/schema":
		reply(map[string]any{"item": map[string]any{"id": map[string]any{"name": "ID", "type": "id"}, "name": map[string]any{"name": "Name", "type": "text"}}})
	case "/api/v1/synchronizer/data":
		var in struct{ RequestedType string }
		_ = json.NewDecoder(r.Body).Decode(&in)
		if in.RequestedType != "item" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"message": "unknown type"}`))
			return
		}
		reply(map[string]any{"items": []any{map[string]any{"id": "1", "name": "one"}, map[string]any{"id": "2", "name": "two"}}, "synchronizationType": "full"})
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"message": "not found"}`))
	}
}

// An app whose authentication has no fields is checked in full without
// --account: validated with an empty account, as appkit sync validates it,
// its data is walked and nothing is skipped for want of an account.
func TestConformAuthWithoutFields(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(publicApp))
	t.Cleanup(srv.Close)
	var out, errb bytes.Buffer
	code := run(context.Background(), []string{"conform", srv.URL, "--json", "--quiet"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s\n%s", code, out.String(), errb.String())
	}
	rep := decodeReport(t, out.Bytes())
	passed := map[string]bool{}
	for _, r := range rep.Results {
		if r.Status == "passed" {
			passed[r.ID+" ["+r.Subject+"]"] = true
		}
		if r.Status == "skipped" && strings.Contains(r.Why, "account") {
			t.Errorf("%s [%s] skipped for want of an account: %s", r.ID, r.Subject, r.Why)
		}
	}
	for _, name := range []string{"accounts.validate [public]", "sync.config []", "data.page [item]", "data.items-match-schema [item]"} {
		if !passed[name] {
			t.Errorf("%s did not pass:\n%s", name, out.String())
		}
	}
}
