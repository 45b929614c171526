package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// checkoutWithGo skips the test where there is no go command and returns
// the root of this repository's checkout, for the new modules the test
// builds to point at.
func checkoutWithGo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// Every combination of kind and authentication that "appkit new" writes
// builds and passes its own tests (the conformance suite included) in its
// own module, with go.mod pointed at this checkout. The combinations are
// tested one after the other in this test; they share the build cache, so
// after the first one each takes a few seconds.
func TestNew_everyCombinationPassesItsTests(t *testing.T) {
	root := checkoutWithGo(t)
	base := t.TempDir()
	for _, kind := range []string{"sync", "action"} {
		for _, auth := range []string{"none", "token", "oauth2"} {
			name := "gen-" + kind + "-" + auth
			t.Run(kind+"/"+auth, func(t *testing.T) {
				dir := filepath.Join(base, name)
				var stdout, stderr bytes.Buffer
				if code := run(context.Background(), []string{"new", name, "--kind", kind, "--auth", auth, "--dir", dir, "--replace", root}, &stdout, &stderr); code != 0 {
					t.Fatalf("appkit new: exit %d\n%s", code, stderr.String())
				}
				cmd := exec.CommandContext(t.Context(), "go", "test", "-count=1", "./...")
				cmd.Dir = dir
				// -mod=mod fills go.sum from the module cache (or GOPROXY as
				// the environment sets it), as "go mod tidy" would.
				cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod -buildvcs=false", "GOWORK=off", "PORT=")
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("go test ./... in the new app: %v\n%s", err, out)
				}
				if n := strings.Count(string(out), "ok  \t"); n < 2 {
					t.Errorf("want two packages tested:\n%s", out)
				}
			})
		}
	}
}

func TestNew_refused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"new"}, "want one NAME\nrun 'appkit new -h' for usage\n"},
		{[]string{"new", "My App"}, "name"},
		{[]string{"new", "ok", "--kind", "both"}, "kind"},
		{[]string{"new", "ok", "--auth", "basic"}, "auth"},
		{[]string{"new", "ok", "--dir", dir}, "not empty"},
		{[]string{"new", "ok", "extra"}, "want one NAME"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), tc.args, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}

// A development build run inside a clone of this repository (as `go run
// ./cmd/appkit new` is) points the new app at the clone, and the next
// steps it prints, run as printed, pass: the default sync app over an HTTP
// API, with the upstream toolkit and its fake API.
func TestNew_nextStepsFromACheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and tests a new module")
	}
	root := checkoutWithGo(t)
	if got := appkitCheckout(filepath.Join(root, "cmd", "appkit")); got != root {
		t.Fatalf("appkitCheckout = %q, want %q", got, root)
	}
	if got := appkitCheckout(t.TempDir()); got != "" {
		t.Fatalf("appkitCheckout outside a checkout = %q", got)
	}
	dir := filepath.Join(t.TempDir(), "my-notes")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"new", "my-notes", "--dir", dir}, &stdout, &stderr); code != 0 {
		t.Fatalf("appkit new: exit %d\n%s", code, stderr.String())
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil || !strings.Contains(string(mod), "replace github.com/appkitgo/appkit => "+root+"\n") {
		t.Fatalf("go.mod does not use the checkout %s:\n%s", root, mod)
	}
	if _, err := os.Stat(filepath.Join(dir, "fakeapi", "fakeapi.go")); err != nil {
		t.Errorf("the default kind is not the sync app over an API: %v", err)
	}
	var next string
	for line := range strings.Lines(stdout.String()) {
		if s, ok := strings.CutPrefix(line, "Next: "); ok {
			next = strings.TrimSpace(s)
		}
	}
	if next != "cd "+dir+" && go mod tidy && go test ./..." {
		t.Fatalf("next steps %q:\n%s", next, stdout.String())
	}
	cmd := exec.CommandContext(t.Context(), "sh", "-c", next)
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-buildvcs=false", "PORT=")
	out, err := cmd.CombinedOutput()
	if err != nil && (bytes.Contains(out, []byte("dial tcp")) || bytes.Contains(out, []byte("no such host"))) {
		t.Skipf("go mod tidy needs the module proxy, which is unreachable:\n%s", out)
	}
	if err != nil || strings.Count(string(out), "ok  \t") != 2 {
		t.Fatalf("%s: %v\n%s", next, err, out)
	}
}

// A development build finds the checkout it runs in, else the one it was
// built from; without either (or under -trimpath) it says plainly that no
// release exists and what the app needs.
func TestNew_localCheckout(t *testing.T) {
	t.Parallel()
	root := checkoutWithGo(t)
	outside := t.TempDir()
	if got, note := localCheckout(filepath.Join(root, "internal"), ""); got != root || !strings.Contains(note, "checkout at "+root) {
		t.Errorf("inside a checkout: %q, %q", got, note)
	}
	if got, note := localCheckout(outside, filepath.Join(root, "cmd", "appkit", "new.go")); got != root || !strings.Contains(note, "built from, "+root) {
		t.Errorf("outside, built from the checkout: %q, %q", got, note)
	}
	if got := buildSource(); localCheckoutRoot(outside, got) != root {
		t.Errorf("this test's build source %q does not lead to the checkout %s", got, root)
	}
	for _, source := range []string{"github.com/appkitgo/appkit/cmd/appkit/new.go", filepath.Join(outside, "new.go"), ""} {
		got, note := localCheckout(outside, source)
		if got != "" || note != noRelease {
			t.Errorf("source %q: %q, %q; want none and what is missing", source, got, note)
		}
	}
	for _, want := range []string{"no release of appkit exists", "git clone", "--replace DIR"} {
		if !strings.Contains(noRelease, want) {
			t.Errorf("the note %q does not say %q", noRelease, want)
		}
	}
}

func localCheckoutRoot(wd, source string) string {
	root, _ := localCheckout(wd, source)
	return root
}
