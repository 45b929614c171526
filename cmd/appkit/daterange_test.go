package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

func TestDaterangeCommand(t *testing.T) {
	const june13 = "2017-06-13T10:00:00Z" // a Tuesday
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string // exact, when code is 0
		stderr string // a fragment, when code is not 0
	}{
		{"words as separate arguments", []string{"--now", june13, "last", "2", "weeks"}, 0,
			`{"_min":"2017-06-05T00:00:00.000","_max":"2017-06-18T23:59:59.999"}`, ""},
		{"statement as one argument", []string{"--now", june13, "between 6 quarters ago and 2 months ago"}, 0,
			`{"_min":"2015-10-01T00:00:00.000","_max":"2017-03-31T23:59:59.999"}`, ""},
		{"open max is null", []string{"--now", june13, "from", "1", "jan", "2017"}, 0,
			`{"_min":"2017-01-01T00:00:00.000","_max":null}`, ""},
		{"open min is null", []string{"--now=" + june13, "to yesterday"}, 0,
			`{"_min":null,"_max":"2017-06-12T23:59:59.999"}`, ""},
		{"offset zone moves today", []string{"--tz", "+05:30", "--now", "2017-06-13T23:30:00Z", "today"}, 0,
			`{"_min":"2017-06-14T00:00:00.000","_max":"2017-06-14T23:59:59.999"}`, ""},
		{"IANA zone", []string{"--tz", "Asia/Kolkata", "--now", "2017-06-13T23:30:00Z", "this", "week"}, 0,
			`{"_min":"2017-06-12T00:00:00.000","_max":"2017-06-18T23:59:59.999"}`, ""},
		{"zone behind UTC", []string{"--tz", "America/Los_Angeles", "--now", "2017-06-14T03:00:00Z", "today"}, 0,
			`{"_min":"2017-06-13T00:00:00.000","_max":"2017-06-13T23:59:59.999"}`, ""},
		{"negative offset", []string{"--tz", "-0800", "--now", "2017-06-14T03:00:00Z", "today"}, 0,
			`{"_min":"2017-06-13T00:00:00.000","_max":"2017-06-13T23:59:59.999"}`, ""},
		{"now's own offset does not set the zone", []string{"--now", "2017-06-14T01:00:00+05:30", "today"}, 0,
			`{"_min":"2017-06-13T00:00:00.000","_max":"2017-06-13T23:59:59.999"}`, ""},
		{"statement error", []string{"--now", june13, "next", "week"}, 1, "",
			`syntax error at position 0 ("next")`},
		{"invalid date", []string{"--now", june13, "30 Feb 2017"}, 1, "", "invalid date"},
		{"start after end", []string{"--now", june13, "between today and yesterday"}, 1, "", "start after end"},
		{"flags after the statement are words", []string{"today", "--tz", "UTC"}, 1, "", `("--tz")`},
		{"no statement", []string{"--now", june13}, 2, "", "no statement"},
		{"blank statement", []string{"  "}, 2, "", "no statement"},
		{"unknown flag", []string{"--bogus", "today"}, 2, "", "flag provided but not defined"},
		{"bad now", []string{"--now", "yesterday", "today"}, 2, "", "--now"},
		{"unknown zone", []string{"--tz", "Mars/Olympus_Mons", "today"}, 2, "", "unknown zone"},
		{"offset too large", []string{"--tz", "+25:00", "today"}, 2, "", "offset"},
		{"malformed offset", []string{"--tz", "++5:30", "today"}, 2, "", "offset"},
		{"Local zone refused", []string{"--tz", "Local", "today"}, 2, "", "would depend on the machine"},
		{"local zone refused", []string{"--tz=local", "today"}, 2, "", "would depend on the machine"},
		{"empty zone refused", []string{"--tz=", "today"}, 2, "", "empty zone"},
		{"DST zone skipping midnight", []string{"--tz", "America/Sao_Paulo", "--now", "2017-10-15T15:00:00Z", "today"}, 0,
			`{"_min":"2017-10-15T01:00:00.000","_max":"2017-10-15T23:59:59.999"}`, ""},
		{"no-break space between words", []string{"--now", june13, "last\u00a02\u3000weeks\u00a0"}, 0,
			`{"_min":"2017-06-05T00:00:00.000","_max":"2017-06-18T23:59:59.999"}`, ""},
		{"help", []string{"-h"}, 0, "", "Usage: appkit daterange"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), append([]string{"daterange"}, c.args...), &out, &errb)
			if code != c.code {
				t.Fatalf("exit %d, want %d; stdout %q, stderr %q", code, c.code, out.String(), errb.String())
			}
			if c.code == 0 && c.stdout != "" {
				if got := out.String(); got != c.stdout+"\n" {
					t.Errorf("stdout %q, want %q", got, c.stdout+"\n")
				}
				if errb.Len() != 0 {
					t.Errorf("stderr %q, want nothing", errb.String())
				}
			}
			if c.stderr != "" {
				if !strings.Contains(errb.String(), c.stderr) {
					t.Errorf("stderr %q does not contain %q", errb.String(), c.stderr)
				}
				if c.code != 0 && out.Len() != 0 {
					t.Errorf("stdout %q on failure, want nothing", out.String())
				}
			}
		})
	}
}

// TestDaterangeDefaultNow: without --now the statement is evaluated at the
// system clock, in UTC.
func TestDaterangeDefaultNow(t *testing.T) {
	before := time.Now().UTC().Format("2006-01-02")
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"daterange", "today"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	after := time.Now().UTC().Format("2006-01-02")
	got := out.String()
	if !strings.Contains(got, `"_min":"`+before+`T00:00:00.000"`) && !strings.Contains(got, `"_min":"`+after+`T00:00:00.000"`) {
		t.Fatalf("stdout %q is not today (%s)", got, before)
	}
}

// TestDaterangeBinary builds the appkit binary and runs it, so that exit
// codes and streams are checked as scripts see them.
func TestDaterangeBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	bin := filepath.Join(t.TempDir(), "appkit")
	args := []string{"build", "-o", bin}
	// Build as this test binary was built, to reuse the build cache.
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-race" && s.Value == "true" {
				args = append(args, "-race")
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, gobin, append(args, ".")...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "daterange", "--now", "2017-06-13T10:00:00Z", "--tz", "+05:30", "last", "2", "weeks")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("run: %v; stderr %q", err, stderr.String())
	}
	if want := `{"_min":"2017-06-05T00:00:00.000","_max":"2017-06-18T23:59:59.999"}` + "\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}

	stdout.Reset()
	stderr.Reset()
	cmd = exec.CommandContext(ctx, bin, "daterange", "last", "0", "days")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit %v, want status 1", err)
	}
	if stdout.Len() != 0 || !strings.Contains(stderr.String(), `position 5 ("0")`) {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}

	cmd = exec.CommandContext(ctx, bin, "daterange")
	err = cmd.Run()
	if !errors.As(err, &exit) || exit.ExitCode() != 2 {
		t.Fatalf("no statement: exit %v, want status 2", err)
	}
}
