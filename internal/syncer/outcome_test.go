package syncer_test

import (
	"testing"

	"github.com/appkitgo/appkit/internal/syncer"
)

// TestOutcomeText: the words the CLI and the console show for a value
// report's outcome.
func TestOutcomeText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ outcome, want string }{
		{syncer.ValueCoerced, "coerced"},
		{syncer.ValueDropped, "left empty"},
		{"something new", "something new"},
	} {
		if got := (&syncer.ValueReport{Outcome: tc.outcome}).OutcomeText(); got != tc.want {
			t.Errorf("OutcomeText(%q) = %q, want %q", tc.outcome, got, tc.want)
		}
	}
}
