package conformance

import (
	"errors"
	"strings"
	"testing"
)

// Test runs the suite against cfg's app (a URL, or a Handler served in
// process) as subtests of t: one subtest per check and subject, failing
// for a failed check, skipped for a skipped one, logging warnings; a run
// that stopped before its end (t's context done, Config.TotalTimeout) fails
// t after the subtests of its partial results. It returns the report for
// further assertions.
//
//	func TestConformance(t *testing.T) {
//		h, err := myapp.New().Handler()
//		if err != nil {
//			t.Fatal(err)
//		}
//		conformance.Test(t, conformance.Config{Handler: h, Account: map[string]any{"token": "demo"}})
//	}
func Test(t *testing.T, cfg Config) Report {
	t.Helper()
	ctx := t.Context()
	rep, err := Run(ctx, cfg)
	if err != nil && !errors.Is(err, ErrStopped) {
		t.Fatalf("conformance: %v", err)
	}
	for _, res := range rep.Results {
		t.Run(subtestName(res), func(t *testing.T) {
			switch res.Status {
			case Failed:
				t.Errorf("%s\nexpected: %s\ngot:      %s\nrule:     %s", res.Title, res.Expected, res.Got, res.Rule)
			case Warned:
				t.Logf("warning: %s\nexpected: %s\ngot:      %s\nrule:     %s", res.Title, res.Expected, res.Got, res.Rule)
			case Skipped:
				t.Skip(res.Why)
			}
		})
	}
	t.Log(rep.Summary())
	if err != nil {
		// A partial run says nothing of the checks it did not reach.
		t.Errorf("conformance: %v (%s)", err, rep.Stopped)
	}
	return rep
}

// subtestName is the result's name in a form go test keeps readable.
func subtestName(r Result) string {
	if r.Subject == "" {
		return r.ID
	}
	return r.ID + "/" + strings.NewReplacer(" ", "_", "/", "_").Replace(r.Subject)
}
