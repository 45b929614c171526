package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/appkitgo/appkit/conformance"
)

func init() {
	register(command{
		name:    "conform",
		summary: "check an app at a URL against the app protocol",
		run:     runConform,
	})
}

const conformUsage = `Usage: appkit conform URL [--auth ID] [--account KEY=VALUE ...] [--filter KEY=VALUE ...] [--types a,b | --type ID ...]
                     [--timeout D] [--max-types N] [--max-pages N] [--quiet] [--json] [--junit FILE]

Runs the conformance suite against the app at URL, the way the workspace
service calls it: descriptor, logo, accounts, errors, synchronization (config,
filters, datalists, schema, every page of every type, twice, and a delta),
webhooks and actions. Each check is printed as passed, failed (with what was
expected, what came back and the rule of docs/protocol.md), warned (appkit's
choices and the service's tolerances: they never fail a run) or skipped (with
why), then the latency of each endpoint and the line
"N passed, N failed, N skipped".

--account gives the values of the account's fields (repeat it per field),
--auth the id of their authentication; without --auth, one is picked as
appkit sync picks it: the only one, else none, else the first that is not
OAuth. Without --account, an authentication that takes no values (no
fields, or only links and optional ones) is validated with an empty
account; for another, checks that need a valid account are skipped.
Repeated cursors and pages fail at once and end the type's walk, as the
sync stops the type; values the sync converts are warned about, naming the
conversion.

--filter gives a filter value; VALUE is read as JSON when it is valid JSON (a
number, an array, an object such as {"_min":"2024-01-01T00:00:00"}), as a
string otherwise; a filter given several times gets the list of its values.

Bounds: the whole run stops after --timeout (default 10m); at most --max-types
types are synchronized (default 50, the first of --types or of the config);
a type's run ends after --max-pages pages (default 1000). Progress (each stage,
type and check) goes to stderr unless --quiet. SIGINT (Ctrl-C) or SIGTERM
stops the run at once: the report of what was checked until then is printed,
marked as stopped.

Exit status: 0 when no check failed (warnings do not count); 1 when one did
(or the report could not be written); 2 for a usage error (a bad flag or
URL: nothing was checked); 3 when the run stopped before its end
(--timeout, SIGINT, SIGTERM): the report is partial.

Examples:
  appkit conform http://localhost:8080 --account token=demo
  appkit conform https://app.example.com --auth token --account token=$TOKEN --types task --junit conform.xml

Flags:
`

// runConform implements "appkit conform".
func runConform(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("conform", conformUsage, nil, stderr)
	auth := fs.String("auth", "", "the id of the account's authentication (default: the only one, else none, else the first that is not OAuth)")
	account := accountFlag(fs, "")
	filter := filterFlag(fs, "sent as read (a comma-separated text stays one string)")
	types := typesFlag(fs, "every type of the config")
	timeout := fs.Duration("timeout", conformance.DefaultTotalTimeout, "stop the whole run after `D`")
	maxTypes := fs.Int("max-types", conformance.DefaultMaxTypes, "synchronize at most `N` types")
	maxPages := fs.Int("max-pages", conformance.DefaultMaxPages, "end a type's run after `N` pages")
	quiet := fs.Bool("quiet", false, "print no progress on stderr")
	asJSON := fs.Bool("json", false, "print the report as JSON instead of text")
	junit := fs.String("junit", "", "also write the report as JUnit XML to `FILE`")
	// The URL may come before, between or after the flags.
	var positional []string
	for {
		if err := fs.parse(args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(positional) != 1 {
		return usageErrorf("want one URL, got %d arguments", len(positional))
	}
	if *timeout <= 0 || *maxTypes <= 0 || *maxPages <= 0 {
		return usageErrorf("--timeout, --max-types and --max-pages must be positive")
	}
	cfg := conformance.Config{URL: positional[0], Auth: *auth, Filter: filter.values(), Types: *types,
		TotalTimeout: *timeout, MaxTypes: *maxTypes, MaxPages: *maxPages}
	if len(account.pairs) > 0 {
		cfg.Account = map[string]any{}
		for k, v := range account.last() {
			cfg.Account[k] = v
		}
	}
	if len(cfg.Filter) == 0 {
		cfg.Filter = nil
	}
	if !*quiet {
		cfg.Progress = conformProgress(stderr)
	}
	rep, err := conformance.Run(ctx, cfg)
	stopped := errors.Is(err, conformance.ErrStopped)
	if err != nil && !stopped {
		// Run fails before it starts only on its configuration (the URL).
		return &exitError{Code: exitUsage, Err: err}
	}
	if *asJSON {
		err = rep.WriteJSON(stdout)
	} else {
		err = rep.WriteText(stdout)
	}
	if err != nil {
		return fmt.Errorf("write the report: %w", err)
	}
	if *junit != "" {
		if err := writeJUnit(*junit, rep); err != nil {
			return fmt.Errorf("--junit: %w", err)
		}
	}
	switch {
	case stopped:
		return partialError(fmt.Errorf("stopped before the end (%s): the report is partial", rep.Stopped))
	case !rep.OK():
		return errChecksFailed
	}
	return nil
}

// errChecksFailed is the error of a run where a check failed (the report
// says which).
var errChecksFailed = errors.New("a check failed")

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
