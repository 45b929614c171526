package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestRunUnknownCommand(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"nope"}, &out, &errb); code != 2 {
		t.Fatalf("exit code = %d, want 2", code)
	}
	if !strings.Contains(errb.String(), `unknown command "nope"`) || out.Len() != 0 {
		t.Fatalf("stdout %q, stderr %q", out.String(), errb.String())
	}
}

func TestRunNoArgumentsListsCommandsOnStderr(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := run(context.Background(), nil, &out, &errb); code != exitUsage {
		t.Fatalf("exit code = %d, want 2", code)
	}
	if out.Len() != 0 {
		t.Errorf("usage on stdout: %q", out.String())
	}
	for name := range commands {
		if !strings.Contains(errb.String(), "  "+name+" ") {
			t.Errorf("usage does not list %q:\n%s", name, errb.String())
		}
	}
}

func TestRunHelpListsCommandsAndExitCodes(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"help"}, &out, &errb); code != 0 {
		t.Fatalf("exit code = %d, want 0", code)
	}
	for name := range commands {
		if !strings.Contains(out.String(), name) {
			t.Errorf("help does not list %q:\n%s", name, out.String())
		}
	}
	for _, code := range []string{"0  done", "1  failed", "2  usage", "3  partial"} {
		if !strings.Contains(out.String(), code) {
			t.Errorf("help does not explain exit code %q:\n%s", code, out.String())
		}
	}
}

// helpOf returns the help of "appkit help name", checking that it matches
// "appkit name -h" (the one on stdout, the other on stderr, both exit 0).
func helpOf(t *testing.T, name string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"help", name}, &out, &errb); code != 0 || errb.Len() != 0 {
		t.Fatalf("appkit help %s: exit %d, stderr %q", name, code, errb.String())
	}
	var out2, errb2 bytes.Buffer
	if code := run(context.Background(), []string{name, "-h"}, &out2, &errb2); code != 0 || out2.Len() != 0 {
		t.Fatalf("appkit %s -h: exit %d, stdout %q", name, code, out2.String())
	}
	if out.String() != errb2.String() {
		t.Fatalf("appkit help %s and appkit %s -h differ:\n%s\n---\n%s", name, name, out.String(), errb2.String())
	}
	return out.String()
}

func TestCommandHelp(t *testing.T) {
	t.Parallel()
	for name := range commands {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			help := helpOf(t, name)
			if !strings.HasPrefix(help, "Usage: appkit "+name) {
				t.Errorf("help of %s starts %.60q", name, help)
			}
		})
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"help", "nope"}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), `unknown command "nope"`) {
		t.Errorf("help of an unknown command: exit %d, stderr %q", code, errb.String())
	}
}

// A bad flag prints two lines, the error and where the usage is, and exits 2.
func TestBadFlagPrintsTwoLines(t *testing.T) {
	t.Parallel()
	for name := range commands {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{name, "--no-such-flag"}, &out, &errb)
			want := fmt.Sprintf("appkit %s: flag provided but not defined: -no-such-flag\nrun 'appkit %s -h' for usage\n", name, name)
			if code != exitUsage || errb.String() != want || out.Len() != 0 {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out.String(), errb.String(), want)
			}
		})
	}
}

// Usage errors exit 2 with the hint in every command; other failures exit 1
// without it.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"version", "extra"}, 2, "unexpected arguments"},
		{[]string{"version"}, 0, ""},
		{[]string{"daterange"}, 2, "no statement"},
		{[]string{"daterange", "--tz", "Mars/Base", "today"}, 2, "unknown zone"},
		{[]string{"daterange", "last", "0", "days"}, 1, "position 5"},
		{[]string{"sync", "--store", "sqlite::memory:"}, 2, "--app is required"},
		{[]string{"sync", "--account", "novalue", "--app", "http://a"}, 2, "want KEY=VALUE"},
		{[]string{"sync", "--store", "mysql://x", "--app", "http://127.0.0.1:1"}, 1, "unsupported DSN"},
		{[]string{"conform"}, 2, "want one URL"},
		{[]string{"conform", "ftp://a"}, 2, "want an absolute http or https address"},
		{[]string{"conform", "--filter", "=x", "http://a"}, 2, "want KEY=VALUE"},
		{[]string{"conform", "http://127.0.0.1:1", "--quiet", "--junit", filepath.Join(dir, "no", "such", "dir.xml")}, 1, "--junit"},
		{[]string{"host", "--rate-limit", "-1"}, 2, "0 or positive"},
		{[]string{"host", "--store", "mysql://x", "--addr", "127.0.0.1:0"}, 1, "unsupported DSN"},
		{[]string{"new"}, 2, "want one NAME"},
		{[]string{"new", "ok", "--dir", filepath.Join("/dev/null", "x")}, 1, ""},
		{[]string{"image"}, 2, "want one PACKAGE_DIR"},
		{[]string{"image", "./testdata/imageapp", "--ca-certs", "/nonexistent.pem"}, 1, "CA certificates"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			var out, errb bytes.Buffer
			code := run(context.Background(), tc.args, &out, &errb)
			if code != tc.code || !strings.Contains(errb.String(), tc.msg) {
				t.Fatalf("exit %d, stderr %q; want %d with %q", code, errb.String(), tc.code, tc.msg)
			}
			hint := fmt.Sprintf("run 'appkit %s -h' for usage", tc.args[0])
			if strings.Contains(errb.String(), hint) != (tc.code == exitUsage) {
				t.Errorf("stderr %q: the usage hint goes with exit 2 only", errb.String())
			}
		})
	}
}

func TestExitCodeOfErrors(t *testing.T) {
	t.Parallel()
	base := errors.New("cause")
	for _, tc := range []struct {
		err  error
		code int
	}{
		{nil, 0},
		{base, 1},
		{fmt.Errorf("wrapped: %w", base), 1},
		{usageErrorf("bad %s", "flag"), 2},
		{partialError(base), 3},
		{fmt.Errorf("context: %w", partialError(base)), 3},
		{errHelp, 0},
	} {
		if got := exitCode(tc.err); got != tc.code {
			t.Errorf("exitCode(%v) = %d, want %d", tc.err, got, tc.code)
		}
	}
	var e *exitError
	if err := fmt.Errorf("x: %w", partialError(base)); !errors.As(err, &e) || e.Code != exitPartial || !errors.Is(err, base) {
		t.Errorf("errors.As/Is through a wrapped exitError: %v", err)
	}
}

// Every environment variable a command's source reads is listed in that
// command's help, under Environment.
func TestHelpListsEnvironment(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	literal := regexp.MustCompile(`"((?:APPKIT|SOURCE)_[A-Z_]+)"`)
	// The command a file belongs to: its name, or its prefix before the
	// first letter that is not the command's (hostapps.go is host's).
	owner := func(file string) string {
		base := strings.TrimSuffix(file, ".go")
		for name := range commands {
			if base == name || strings.HasPrefix(base, name) {
				return name
			}
		}
		if strings.HasPrefix(base, "demo") {
			return "host"
		}
		return ""
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := owner(f)
		for _, m := range literal.FindAllStringSubmatch(string(src), -1) {
			if name == "" {
				continue // flags.go: checked below through --store
			}
			checked++
			if help := helpOf(t, name); !regexp.MustCompile(`(?m)^Environment:\n(?:.*\n)*  ` + m[1] + `\n`).MatchString(help) {
				t.Errorf("%s reads %s, which appkit %s -h does not list under Environment", f, m[1], name)
			}
		}
	}
	if checked == 0 {
		t.Fatal("found no environment variable in the sources")
	}
	for name := range commands {
		help := helpOf(t, name)
		if strings.Contains(help, "  -store ") && !strings.Contains(help, "\n  APPKIT_STORE\n") {
			t.Errorf("appkit %s has --store but does not list APPKIT_STORE", name)
		}
	}
	host := helpOf(t, "host")
	for _, v := range []string{"APPKIT_GRAPHQL_ALLOW_PRIVATE_URLS", "APPKIT_SECRET_KEY", "APPKIT_SECRET_KEY_FILE", "APPKIT_APP_NETWORKS", "APPKIT_TOKEN", "APPKIT_STORE"} {
		if !strings.Contains(host, "\n  "+v+"\n") {
			t.Errorf("appkit host -h does not list %s", v)
		}
	}
}
