package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/examples/tracker/tracker"
)

func conformTracker(t *testing.T) *httptest.Server {
	t.Helper()
	quiet := zerolog.Nop()
	h, err := tracker.New(tracker.Config{Logger: &quiet}).Handler()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

var summaryLine = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed, (\d+) skipped`)

func TestConformPassingApp(t *testing.T) {
	srv := conformTracker(t)
	junit := filepath.Join(t.TempDir(), "report.xml")
	var out, errb bytes.Buffer
	// flags before and after the URL
	code := run(context.Background(), []string{"conform", "--account", "token=" + tracker.DemoToken, srv.URL, "--types", "project,task", "--junit", junit}, &out, &errb)
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
	for _, args := range [][]string{
		{"conform"},
		{"conform", "http://a", "http://b"},
		{"conform", "--account", "novalue", "http://a"},
		{"conform", "ftp://a"},
		{"conform", "--nope", "http://a"},
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
