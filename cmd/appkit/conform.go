package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/appkitgo/appkit/conformance"
)

func init() {
	register(command{
		name:    "conform",
		summary: "check an app at a URL against the app protocol",
		run:     runConform,
	})
}

const conformUsage = `Usage: appkit conform URL [--auth ID] [--account KEY=VALUE ...] [--filter KEY=VALUE ...] [--types a,b]
                     [--timeout D] [--max-types N] [--max-pages N] [--quiet] [--json] [--junit FILE]

Runs the conformance suite against the app at URL, the way the workspace
service calls it: descriptor, logo, accounts, errors, synchronization (config,
filters, datalists, schema, every page of every type, twice, and a delta),
webhooks and actions. Each check is printed as passed, failed (with what was
expected, what came back and the rule of docs/protocol.md), warned (appkit's
choices and the service's tolerances: they never fail a run) or skipped (with
why), then the latency of each endpoint and the line
"N passed, N failed, N skipped".

--account gives the values of the account's fields (repeat it per field);
without it, checks that need a valid account are skipped. --filter gives a
filter value; VALUE is read as JSON when it is valid JSON (a number, an array,
an object such as {"_min":"2024-01-01T00:00:00"}), as a string otherwise.

Bounds: the whole run stops after --timeout (default 10m); at most --max-types
types are synchronized (default 50, the first of --types or of the config);
a type's run ends after --max-pages pages (default 1000). Progress (each stage,
type and check) goes to stderr unless --quiet. SIGINT (Ctrl-C) or SIGTERM
stops the run at once: the report of what was checked until then is printed,
marked as stopped.

Exit status: 0 when no check failed (warnings do not count); 1 when one did;
2 for a usage error or a run that could not start; 3 when the run stopped
before its end (--timeout, SIGINT, SIGTERM): the report is partial.

Examples:
  appkit conform http://localhost:8080 --account token=demo
  appkit conform https://app.example.com --auth token --account token=$TOKEN --types task --junit conform.xml

Flags:
`

// conformKV is a repeatable KEY=VALUE flag.
type conformKV struct {
	m      map[string]any
	asJSON bool // read values as JSON when they parse
}

func (kv *conformKV) String() string { return "" }

func (kv *conformKV) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("want KEY=VALUE, got %q", s)
	}
	if kv.m == nil {
		kv.m = map[string]any{}
	}
	var val any = v
	if kv.asJSON {
		var j any
		if err := json.Unmarshal([]byte(v), &j); err == nil {
			val = j
		}
	}
	kv.m[k] = val
	return nil
}

// runConform implements "appkit conform".
func runConform(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("appkit conform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	auth := fs.String("auth", "", "the id of the account's authentication (default: the first the app declares)")
	account := &conformKV{}
	fs.Var(account, "account", "a field of the account as KEY=VALUE (repeatable)")
	filter := &conformKV{asJSON: true}
	fs.Var(filter, "filter", "a filter value as KEY=VALUE, VALUE in JSON or a plain string (repeatable)")
	types := fs.String("types", "", "the types to synchronize, comma-separated (default: every type of the config)")
	timeout := fs.Duration("timeout", conformance.DefaultTotalTimeout, "stop the whole run after `D`")
	maxTypes := fs.Int("max-types", conformance.DefaultMaxTypes, "synchronize at most `N` types")
	maxPages := fs.Int("max-pages", conformance.DefaultMaxPages, "end a type's run after `N` pages")
	quiet := fs.Bool("quiet", false, "print no progress on stderr")
	asJSON := fs.Bool("json", false, "print the report as JSON instead of text")
	junit := fs.String("junit", "", "also write the report as JUnit XML to `FILE`")
	fs.Usage = func() {
		fmt.Fprint(stderr, conformUsage)
		fs.PrintDefaults()
	}
	// The URL may come before, between or after the flags.
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return 0
			}
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(positional) != 1 {
		fmt.Fprintf(stderr, "appkit conform: want one URL, got %d arguments\n", len(positional))
		fs.Usage()
		return 2
	}
	if *timeout <= 0 || *maxTypes <= 0 || *maxPages <= 0 {
		fmt.Fprintln(stderr, "appkit conform: --timeout, --max-types and --max-pages must be positive")
		return 2
	}
	cfg := conformance.Config{URL: positional[0], Auth: *auth, Account: account.m, Filter: filter.m,
		TotalTimeout: *timeout, MaxTypes: *maxTypes, MaxPages: *maxPages}
	if !*quiet {
		cfg.Progress = conformProgress(stderr)
	}
	for _, t := range strings.Split(*types, ",") {
		if t = strings.TrimSpace(t); t != "" {
			cfg.Types = append(cfg.Types, t)
		}
	}
	rep, err := conformance.Run(ctx, cfg)
	stopped := errors.Is(err, conformance.ErrStopped)
	if err != nil && !stopped {
		fmt.Fprintf(stderr, "appkit conform: %v\n", err)
		return 2
	}
	if *asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "appkit conform: write the report: %v\n", err)
		return 2
	}
	if *junit != "" {
		if err := writeJUnit(*junit, rep); err != nil {
			fmt.Fprintf(stderr, "appkit conform: --junit: %v\n", err)
			return 2
		}
	}
	switch {
	case stopped:
		fmt.Fprintf(stderr, "appkit conform: stopped before the end (%s): the report is partial\n", rep.Stopped)
		return 3
	case !rep.OK():
		return 1
	}
	return 0
}

// conformProgress prints the run's progress on w: each stage, each type
// walked and each check's result, one line each.
func conformProgress(w io.Writer) func(conformance.Progress) {
	labels := map[conformance.Status]string{conformance.Passed: "PASS", conformance.Failed: "FAIL", conformance.Warned: "WARN", conformance.Skipped: "SKIP"}
	return func(p conformance.Progress) {
		switch {
		case p.Result != nil:
			fmt.Fprintf(w, "conform:   %s %s\n", labels[p.Result.Status], p.Result.Name())
		case p.Type != "":
			fmt.Fprintf(w, "conform: data %d/%d: %s\n", p.Index, p.Types, p.Type)
		default:
			fmt.Fprintf(w, "conform: %s\n", p.Stage)
		}
	}
}

func writeJUnit(path string, rep conformance.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := rep.WriteJUnit(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
