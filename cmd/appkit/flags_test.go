package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseKeyValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in         string
		key, value string
		ok         bool
	}{
		{"token=abc", "token", "abc", true},
		{"k=", "k", "", true},
		{"k=a=b", "k", "a=b", true},
		{`due={"_min":"2024-01-01T00:00:00"}`, "due", `{"_min":"2024-01-01T00:00:00"}`, true},
		{"k= spaced ", "k", " spaced ", true},
		{"novalue", "", "", false},
		{"=value", "", "", false},
		{"", "", "", false},
	} {
		k, v, err := parseKeyValue(tc.in)
		if (err == nil) != tc.ok || k != tc.key || v != tc.value {
			t.Errorf("parseKeyValue(%q) = %q, %q, %v; want %q, %q, ok %v", tc.in, k, v, err, tc.key, tc.value, tc.ok)
		}
		if err != nil && !errors.Is(err, errKeyValue) {
			t.Errorf("parseKeyValue(%q): error %v does not match errKeyValue", tc.in, err)
		}
	}
}

func FuzzParseKeyValue(f *testing.F) {
	for _, s := range []string{"token=abc", "k=", "=v", "novalue", `f=["a","b"]`, "k=a=b", "k=1e3", `k="x"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, v, err := parseKeyValue(s)
		if err != nil {
			if strings.Contains(s, "=") && !strings.HasPrefix(s, "=") {
				t.Fatalf("%q refused: %v", s, err)
			}
			return
		}
		if k == "" || strings.Contains(k, "=") || k+"="+v != s {
			t.Fatalf("%q split into %q and %q", s, k, v)
		}
		// Reading the value never fails nor loses a plain-text value.
		var f kvFlag
		if err := f.Set(s); err != nil {
			t.Fatal(err)
		}
		vals, texts := f.values(), f.texts()
		if _, ok := vals[k]; !ok {
			t.Fatalf("values of %q lack %q", s, k)
		}
		if !json.Valid([]byte(v)) && (vals[k] != v || len(texts[k]) != 1 || texts[k][0] != v) {
			t.Fatalf("text %q read as %#v / %q", v, vals[k], texts[k])
		}
	})
}

func kv(t *testing.T, args ...string) *kvFlag {
	t.Helper()
	f := &kvFlag{}
	for _, a := range args {
		if err := f.Set(a); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func TestKeyValueFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		last   map[string]string
		texts  map[string][]string
		values map[string]any
	}{
		{
			name:   "text",
			args:   []string{"status=todo"},
			last:   map[string]string{"status": "todo"},
			texts:  map[string][]string{"status": {"todo"}},
			values: map[string]any{"status": "todo"},
		},
		{
			name:   "comma list stays one text value (the app's filter type splits it)",
			args:   []string{"status=todo,doing"},
			last:   map[string]string{"status": "todo,doing"},
			texts:  map[string][]string{"status": {"todo,doing"}},
			values: map[string]any{"status": "todo,doing"},
		},
		{
			name:   "repeated: the last wins for accounts, a list for filters",
			args:   []string{"status=todo", "status=done"},
			last:   map[string]string{"status": "done"},
			texts:  map[string][]string{"status": {"todo", "done"}},
			values: map[string]any{"status": []any{"todo", "done"}},
		},
		{
			name:   "JSON array",
			args:   []string{`projects=["p1","p2"]`},
			last:   map[string]string{"projects": `["p1","p2"]`},
			texts:  map[string][]string{"projects": {"p1", "p2"}},
			values: map[string]any{"projects": []any{"p1", "p2"}},
		},
		{
			name:   "JSON array and a repeat join",
			args:   []string{`projects=["p1"]`, "projects=p2"},
			last:   map[string]string{"projects": "p2"},
			texts:  map[string][]string{"projects": {"p1", "p2"}},
			values: map[string]any{"projects": []any{"p1", "p2"}},
		},
		{
			name:   "JSON number and string",
			args:   []string{"min=5", `name="a b"`},
			last:   map[string]string{"min": "5", "name": `"a b"`},
			texts:  map[string][]string{"min": {"5"}, "name": {"a b"}},
			values: map[string]any{"min": 5.0, "name": "a b"},
		},
		{
			name:   "JSON object: as given in text, parsed in values",
			args:   []string{`due={"_min":"2024-01-01T00:00:00"}`},
			last:   map[string]string{"due": `{"_min":"2024-01-01T00:00:00"}`},
			texts:  map[string][]string{"due": {`{"_min":"2024-01-01T00:00:00"}`}},
			values: map[string]any{"due": map[string]any{"_min": "2024-01-01T00:00:00"}},
		},
		{
			name:   "a date statement is text",
			args:   []string{"due=last 2 weeks"},
			last:   map[string]string{"due": "last 2 weeks"},
			texts:  map[string][]string{"due": {"last 2 weeks"}},
			values: map[string]any{"due": "last 2 weeks"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := kv(t, tc.args...)
			if got := f.last(); !reflect.DeepEqual(got, tc.last) {
				t.Errorf("last = %#v, want %#v", got, tc.last)
			}
			if got := f.texts(); !reflect.DeepEqual(got, tc.texts) {
				t.Errorf("texts = %#v, want %#v", got, tc.texts)
			}
			if got := f.values(); !reflect.DeepEqual(got, tc.values) {
				t.Errorf("values = %#v, want %#v", got, tc.values)
			}
		})
	}
}

func TestListFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--type", "task"}, []string{"task"}},
		{[]string{"--type", "project", "--type", "task"}, []string{"project", "task"}},
		{[]string{"--types", "project,task"}, []string{"project", "task"}},
		{[]string{"--types", " project , ,task "}, []string{"project", "task"}},
		{[]string{"--types", "project", "--type", "task"}, []string{"project", "task"}},
		{nil, nil},
	} {
		fs := newFlagSet("x", "", nil, &bytes.Buffer{})
		got := typesFlag(fs, "all")
		if err := fs.parse(tc.args); err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if len(*got) != len(tc.want) || len(tc.want) > 0 && !reflect.DeepEqual([]string(*got), tc.want) {
			t.Errorf("%q: %q, want %q", tc.args, *got, tc.want)
		}
	}
}

// The commands that choose types take both spellings, and the shared flags
// are described the same in every command that has them.
func TestSharedFlagsAcrossCommands(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"sync", "--type", "a", "--types", "b,c", "--filter", `f=["x"]`, "--account", "k=v"},
		{"conform", "--type", "a", "--types", "b,c", "--filter", `f=["x"]`, "--account", "k=v"},
	} {
		var out, errb bytes.Buffer
		// Flags parsed; then the missing --app or URL is the usage error.
		code := run(context.Background(), args, &out, &errb)
		if code != exitUsage || strings.Contains(errb.String(), "flag") || !strings.Contains(errb.String(), "--app is required") && !strings.Contains(errb.String(), "want one URL") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errb.String())
		}
	}
	described := map[string]string{}
	for name := range commands {
		for _, line := range strings.Split(helpOf(t, name), "\n  -") {
			flagName, rest, _ := strings.Cut(line, "\n")
			flagName, _, _ = strings.Cut(flagName, " ")
			switch flagName {
			case "store", "account", "filter", "type", "types":
				// The common description: without the scope, the note
				// after " — " and what follows the flags.
				rest, _, _ = strings.Cut(rest, "\n\n")
				rest, _, _ = strings.Cut(rest, " — ")
				rest = strings.TrimPrefix(strings.TrimSpace(rest), "with --app: ")
				// Defaults may differ by command (dev keeps its store
				// under the user's cache directory).
				if i := strings.Index(rest, " (default "); i >= 0 {
					rest = rest[:i]
				}
				if prev, ok := described[flagName]; ok && prev != rest {
					t.Errorf("--%s is described differently in appkit %s: %q vs %q", flagName, name, rest, prev)
				}
				described[flagName] = rest
			}
		}
	}
	for _, f := range []string{"store", "account", "filter", "type", "types"} {
		if described[f] == "" {
			t.Errorf("no command has --%s", f)
		}
	}
}
