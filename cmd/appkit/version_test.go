package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

func TestFormatVersion(t *testing.T) {
	tests := []struct {
		name string
		info debug.BuildInfo
		want string
	}{
		{
			name: "go install of a tag: the version names the commit",
			info: debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Path: "github.com/appkitgo/appkit", Version: "v1.2.3"},
				Settings: []debug.BuildSetting{{Key: "GOOS", Value: "darwin"}, {Key: "GOARCH", Value: "arm64"}}},
			want: "appkit v1.2.3\ngo1.26.0 darwin/arm64\n",
		},
		{
			name: "build in a checkout with local changes",
			info: debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.0.0-20261123065000-0123456789ab+dirty"},
				Settings: []debug.BuildSetting{
					{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
					{Key: "vcs.time", Value: "2026-11-23T06:50:00Z"}, {Key: "vcs.modified", Value: "true"},
					{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "amd64"},
				}},
			want: "appkit v0.0.0-20261123065000-0123456789ab+dirty\n" +
				"commit 0123456789abcdef0123456789abcdef01234567 (2026-11-23T06:50:00Z) with uncommitted changes\n" +
				"go1.26.0 linux/amd64\n",
		},
		{
			name: "clean checkout",
			info: debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"},
				Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "false"}}},
			want: "appkit (devel)\ncommit abc\ngo1.26.0\n",
		},
		{
			name: "no version recorded",
			info: debug.BuildInfo{GoVersion: "go1.26.0"},
			want: "appkit (unknown)\ngo1.26.0\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := formatVersion(&tt.info); got != tt.want {
				t.Errorf("formatVersion:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestVersionRejectsArguments(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"version", "extra"}, &out, &errb); code != 2 {
		t.Fatalf("exit code = %d, want 2", code)
	}
}

// TestVersionOfBuiltBinary builds the CLI from this checkout and checks that
// "appkit version" names the commit git has checked out.
func TestVersionOfBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout (or no git): %v", err)
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatalf("git rev-parse --show-toplevel: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !fi.IsDir() {
		t.Skip("a git worktree (.git is a file): the go command stamps VCS information only in a checkout with a .git directory")
	}
	bin := filepath.Join(t.TempDir(), "appkit")
	// -buildvcs=true: GOFLAGS may turn stamping off on a developer machine.
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").CombinedOutput()
	if err != nil {
		t.Fatalf("appkit version: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if !regexp.MustCompile(`^appkit v\d+\.\d+\.\d+\S*$`).MatchString(lines[0]) {
		t.Errorf("first line %q: want \"appkit\" and the module version", lines[0])
	}
	if want := "commit " + strings.TrimSpace(string(head)); len(lines) < 2 || !strings.HasPrefix(lines[1], want) {
		t.Errorf("output:\n%s\nwant a line starting with %q", out, want)
	}
}
