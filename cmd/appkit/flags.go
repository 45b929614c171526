package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// envVar is an environment variable that a command reads, listed in its
// help.
type envVar struct {
	name, meaning string
}

// flagSet is a command's flag set with its help: the text before the flags
// (ending in "Flags:\n") and the environment variables it reads.
type flagSet struct {
	*flag.FlagSet
	name   string
	help   string
	env    []envVar
	stderr io.Writer
}

// newFlagSet returns the flag set of "appkit NAME". Its parse never prints
// on its own: a bad flag becomes a usage error (printed by [run] as two
// lines) and -h prints the help on stderr.
func newFlagSet(name, help string, env []envVar, stderr io.Writer) *flagSet {
	fs := flag.NewFlagSet("appkit "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, name: name, help: help, env: env, stderr: stderr}
}

// parse parses args: errHelp after printing the help for -h, a usage error
// for a bad flag.
func (f *flagSet) parse(args []string) error {
	err := f.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		f.printHelp()
		return errHelp
	case err != nil:
		return &exitError{Code: exitUsage, Err: err}
	}
	return nil
}

// parseFlags parses args that hold flags only: an argument left over is a
// usage error.
func (f *flagSet) parseFlags(args []string) error {
	if err := f.parse(args); err != nil {
		return err
	}
	if f.NArg() > 0 {
		return usageErrorf("unexpected arguments %q", f.Args())
	}
	return nil
}

// parseOne parses args that hold one positional argument, which may stand
// before the flags or after them, and returns it; without it, or with
// more than one, it is a usage error naming what.
func (f *flagSet) parseOne(args []string, what string) (string, error) {
	arg, rest := "", args
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		arg, rest = args[0], args[1:]
	}
	if err := f.parse(rest); err != nil {
		return "", err
	}
	if arg == "" && f.NArg() == 1 {
		arg = f.Arg(0)
	} else if f.NArg() > 0 || arg == "" {
		return "", usageErrorf("want one %s", what)
	}
	return arg, nil
}

// printHelp writes the help, the flags and the environment variables to
// stderr.
func (f *flagSet) printHelp() {
	fmt.Fprint(f.stderr, f.help)
	f.SetOutput(f.stderr)
	f.PrintDefaults()
	f.SetOutput(io.Discard)
	if len(f.env) == 0 {
		return
	}
	fmt.Fprintln(f.stderr, "\nEnvironment:")
	for _, e := range f.env {
		fmt.Fprintf(f.stderr, "  %s\n    \t%s\n", e.name, e.meaning)
	}
}

// envOr returns the environment variable key, or fallback when it is unset
// or empty.
func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

// The flags that several commands share, declared once so that they are
// spelled, described and parsed the same everywhere.

// envStore is the environment variable of --store's default.
var envStore = envVar{"APPKIT_STORE", "the default of --store"}

func storeFlag(fs *flagSet) *string {
	return fs.String("store", envOr(envStore.name, defaultHostStore), "store DSN: sqlite:PATH, sqlite::memory: or postgres://... (env APPKIT_STORE)")
}

func authFlag(fs *flagSet, scope string) *string {
	return fs.String("auth", "", scope+"the authentication id of the account (default: the app's only one, else none, else the first)")
}

func accountFlag(fs *flagSet, scope string) *kvFlag {
	v := &kvFlag{}
	fs.Var(v, "account", scope+"an account field, KEY=VALUE (repeatable; the last value of a key wins)")
	return v
}

// filterFlag declares --filter; note, when not empty, follows the common
// description after " — ".
func filterFlag(fs *flagSet, note string) *kvFlag {
	v := &kvFlag{}
	if note != "" {
		note = " — " + note
	}
	fs.Var(v, "filter", "a filter value, KEY=VALUE (repeatable); VALUE is read as JSON when it is valid JSON, as text otherwise; a list filter takes a JSON array or the flag repeated"+note)
	return v
}

// typesFlag declares --type (repeatable) and its other spelling --types
// (comma-separated): both fill the same list.
func typesFlag(fs *flagSet, dflt string) *listFlag {
	v := &listFlag{}
	fs.Var(v, "type", "a type to synchronize (repeatable, or comma-separated) — default: "+dflt)
	fs.Var(v, "types", "the types to synchronize, comma-separated (the same as --type)")
	return v
}

// listFlag is a repeatable flag whose values may be comma-separated lists:
// --type a --type b and --types a,b give the same list.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

// Set appends the comma-separated items of s (blank items are left out).
func (l *listFlag) Set(s string) error {
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			*l = append(*l, p)
		}
	}
	return nil
}

// errKeyValue is wrapped by the error of a flag value that is not
// KEY=VALUE.
var errKeyValue = errors.New("want KEY=VALUE")

// parseKeyValue splits a KEY=VALUE flag value at its first '='; the key is
// not empty and the value may be (KEY= sets an empty value).
func parseKeyValue(s string) (key, value string, err error) {
	key, value, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return "", "", fmt.Errorf("%w, got %q", errKeyValue, s)
	}
	return key, value, nil
}

// kvFlag is the one KEY=VALUE flag type of the CLI (--account, --filter):
// repeatable, the pairs kept in the order given.
type kvFlag struct {
	pairs [][2]string
}

func (f *kvFlag) String() string {
	if f == nil {
		return ""
	}
	s := make([]string, len(f.pairs))
	for i, p := range f.pairs {
		s[i] = p[0] + "=" + p[1]
	}
	return strings.Join(s, " ")
}

// Set adds one KEY=VALUE pair.
func (f *kvFlag) Set(s string) error {
	k, v, err := parseKeyValue(s)
	if err != nil {
		return err
	}
	f.pairs = append(f.pairs, [2]string{k, v})
	return nil
}

// last returns the last value given for each key (account fields).
func (f *kvFlag) last() map[string]string {
	out := make(map[string]string, len(f.pairs))
	for _, p := range f.pairs {
		out[p[0]] = p[1]
	}
	return out
}

// texts returns the values of each key as text, for a consumer that reads
// each filter's values by the filter's type (appkit sync): a JSON string
// gives its content, a JSON array its items (one value each), any other
// value its text as given.
func (f *kvFlag) texts() map[string][]string {
	out := map[string][]string{}
	for _, p := range f.pairs {
		k, v := p[0], p[1]
		var j any
		if json.Unmarshal([]byte(v), &j) != nil {
			out[k] = append(out[k], v)
			continue
		}
		switch j := j.(type) {
		case string:
			out[k] = append(out[k], j)
		case []any:
			for _, item := range j {
				if s, ok := item.(string); ok {
					out[k] = append(out[k], s)
				} else {
					b, _ := json.Marshal(item)
					out[k] = append(out[k], string(b))
				}
			}
		default:
			out[k] = append(out[k], v)
		}
	}
	return out
}

// values returns each key's value in its wire form, for a consumer that
// sends them as they are (appkit conform): JSON when the value is valid
// JSON, else the text; a key given several times gets the list of its
// values (a JSON array's items joined in).
func (f *kvFlag) values() map[string]any {
	out := map[string]any{}
	count := map[string]int{}
	for _, p := range f.pairs {
		count[p[0]]++
	}
	for _, p := range f.pairs {
		k, v := p[0], p[1]
		var val any = v
		var j any
		if json.Unmarshal([]byte(v), &j) == nil {
			val = j
		}
		if count[k] == 1 {
			out[k] = val
			continue
		}
		list, _ := out[k].([]any)
		if arr, ok := val.([]any); ok {
			list = append(list, arr...)
		} else {
			list = append(list, val)
		}
		out[k] = list
	}
	return out
}
