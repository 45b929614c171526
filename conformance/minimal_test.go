package conformance_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/conformance/internal/minimalapp"
)

// An app written from the protocol alone, without appkit and without any
// of appkit's choices, passes: no failure. What it does differently from
// appkit (it ignores the authentication id, answers an empty page for an
// unknown type, leaves out id and type, runs an action without arguments,
// refuses a malformed body with a plain-text page, serves no logo) is
// warned about, never failed.
func TestMinimalApp(t *testing.T) {
	t.Parallel()
	rep := conformance.Test(t, conformance.Config{Handler: minimalapp.New(), Account: map[string]any{"token": minimalapp.Token}})
	if !rep.OK() || rep.Failed > 0 {
		t.Fatalf("the minimal correct app fails %v", rep.FailedIDs())
	}
	wantWarned := []string{
		conformance.CheckRejectUnknownID, conformance.CheckActionArgs, conformance.CheckDescriptorExtra,
		conformance.CheckMissingField, conformance.CheckUnknownType, conformance.CheckSchemaUnknown,
		conformance.CheckMistakeAnswers,
	}
	slices.Sort(wantWarned)
	if got := rep.FailedIDs(); !slices.Equal(got, wantWarned) {
		t.Errorf("warnings %v, want %v", got, wantWarned)
	}
	// The run reached every type's data: the absence of failures is not
	// the absence of checks.
	passed := map[string]bool{}
	for _, r := range rep.Results {
		if r.Status == conformance.Passed {
			passed[r.Name()] = true
		}
	}
	for _, name := range []string{
		"accounts.validate [token]", "accounts.reject-garbage [token]", "schema.relations [contact]",
		"data.page [company]", "data.page [contact]", "data.items-match-schema [contact]", "data.paging-ends [contact]",
	} {
		if !passed[name] {
			var b strings.Builder
			_ = rep.WriteText(&b)
			t.Errorf("%s did not pass:\n%s", name, b.String())
		}
	}
}
