package conformance_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/conformance/internal/brokenapp"
)

// childBreak names the brokenapp break that TestTestHelperChild runs
// conformance.Test against; unset, the child test does nothing.
const childBreak = "CONFORMANCE_TEST_CHILD_BREAK"

// TestTestHelperChild is the test that TestTestHelper runs in a child
// process: conformance.Test against a brokenapp.
func TestTestHelperChild(t *testing.T) {
	brk, ok := os.LookupEnv(childBreak)
	if !ok {
		t.Skip("run by TestTestHelper in a child process")
	}
	conformance.Test(t, brokenConfig(brokenapp.Break(brk)))
}

// conformance.Test fails the subtest of a failed check (and so the test),
// logs a warning without failing, and skips a skipped check. A failing run
// cannot be watched from within the same test, so it runs in a child
// process of the test binary.
func TestTestHelper(t *testing.T) {
	t.Parallel()
	cases := []struct {
		brk      brokenapp.Break
		fails    bool
		contains []string
	}{
		{brokenapp.Status403Not401, true, []string{
			"--- FAIL: TestTestHelperChild/accounts.reject-garbage/token",
			"expected: 401 {message}",
		}},
		{brokenapp.ExtraItemKeys, false, []string{
			"--- PASS: TestTestHelperChild/data.items-extra-keys/task",
			"warning: items carry only keys of the schema",
		}},
		{brokenapp.LogoNotServed, false, []string{"--- SKIP: TestTestHelperChild/transport.logo"}},
	}
	for _, tc := range cases {
		t.Run(string(tc.brk), func(t *testing.T) {
			t.Parallel()
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestTestHelperChild$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), childBreak+"="+string(tc.brk))
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			switch {
			case err != nil && !errors.As(err, &exit):
				t.Fatalf("run the child: %v", err)
			case tc.fails && err == nil:
				t.Errorf("conformance.Test passed a run with a failed check:\n%s", out)
			case !tc.fails && err != nil:
				t.Errorf("conformance.Test failed a run without failed checks (%v):\n%s", err, out)
			}
			for _, s := range tc.contains {
				if !strings.Contains(string(out), s) {
					t.Errorf("the child's output lacks %q:\n%s", s, out)
				}
			}
		})
	}
}
