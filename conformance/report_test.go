package conformance_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"testing"
	"time"

	"github.com/appkitgo/appkit/conformance"
	goldenfile "github.com/appkitgo/appkit/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// sampleReport has one result of each status and two endpoints.
func sampleReport() conformance.Report {
	byID := map[string]conformance.Check{}
	for _, c := range conformance.Checks() {
		byID[c.ID] = c
	}
	return conformance.Report{
		URL: "http://localhost:8080",
		Results: []conformance.Result{
			{Check: byID[conformance.CheckDescriptorRequired], Status: conformance.Passed},
			{Check: byID[conformance.CheckIDsUnique], Subject: "task", Status: conformance.Failed,
				Expected: "each id once per run", Got: `id "t1" on page 1 and page 2`},
			{Check: byID[conformance.CheckItemsExtra], Subject: "task", Status: conformance.Warned,
				Expected: "only keys of the schema", Got: `page 1: items[0]: key "colour"`},
			{Check: byID[conformance.CheckWebhookInstall], Status: conformance.Skipped, Why: "the config does not announce webhooks"},
		},
		Latency: []conformance.Latency{
			{Endpoint: "GET /", Calls: 1, Mean: 1500 * time.Microsecond, Max: 1500 * time.Microsecond},
			{Endpoint: "POST /api/v1/synchronizer/data", Calls: 9, Mean: 40 * time.Millisecond, Max: 2500 * time.Millisecond, Slow: 1, Unanswered: 1},
		},
		Passed: 1, Failed: 1, Warnings: 1, Skipped: 1,
		Duration: 3 * time.Second,
	}
}

// golden compares got with testdata/name (-update rewrites it).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, name, got, *update)
}

// TestReportGolden writes the sample report in each text format and
// compares it with its golden file.
func TestReportGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		golden string
		write  func(conformance.Report, io.Writer) error
	}{
		{"report.txt", conformance.Report.WriteText},
		{"report.junit.xml", conformance.Report.WriteJUnit},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			t.Parallel()
			var b bytes.Buffer
			if err := tc.write(sampleReport(), &b); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.golden, b.Bytes())
		})
	}
}

func TestReportJSON(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	rep := sampleReport()
	if err := rep.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back conformance.Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Summary() != rep.Summary() || len(back.Results) != len(rep.Results) || back.Results[1] != rep.Results[1] || back.Latency[1] != rep.Latency[1] {
		t.Fatalf("JSON round trip changed the report:\n%s", b.Bytes())
	}
	if rep.Summary() != "1 passed, 1 failed, 1 skipped (1 warning)" {
		t.Fatalf("summary %q", rep.Summary())
	}
}
