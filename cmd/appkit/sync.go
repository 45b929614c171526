package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
)

func init() {
	register(command{
		name:    "sync",
		summary: "synchronize an app's data into the store once",
		run:     runSync,
	})
}

const syncUsage = `Usage: appkit sync --store DSN --app URL [--auth ID] [--account KEY=VALUE ...]
                   [--type ID ... | --types a,b] [--filter KEY=VALUE ...] [--full]

Runs one synchronization of the app at URL into the store, as the workspace
service would: descriptor, account validation, config, schema, then every
selected type page by page. Prints a summary per type (created, updated,
unchanged, removed, skipped) on stdout.

The account, the types and the filter are remembered in the store: a later
run needs only --store and --app. A run that stops (the app keeps failing,
the process is killed) is resumed by the next run from the page it stopped
at. --full asks for a full refresh instead: a stopped run is not
resumed, and every type is asked for without lastSynchronizedAt, so that
the app answers everything and what it no longer has is removed (fields
added to a type since the last run already get a full run of that type by
themselves). --account takes the authentication's fields (and OAuth tokens:
access_token, refresh_token); --filter a value per filter (repeat it, give
a JSON array or separate values with commas, for a multidropdown; a date
filter takes a statement such as "last 2 weeks"; a JSON string is read as
its text).

Progress goes to stderr: a line per type on a terminal, JSON log lines
otherwise. With OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) set,
the run is traced (OTLP over HTTP): a span for the run, each type, each
page and each call to the app, which gets its W3C traceparent; the spans
are flushed before the command exits.

Each type runs on its own: a type that fails (a malformed page, a cursor
that loops, a schema refused, retries exhausted) stops alone, its reason
printed after the summary, and the others are synchronized. A value that
does not fit its field is converted or left empty, never the item dropped:
the summary has one line per field counting them, with the first value.

Exit status: 0 done; 1 failed (the reason on stderr; the data of the last
good run is kept); 2 usage error; 3 paused by an app that kept failing with
errors that may pass (run again to resume), or partial: some types failed
(each named with its reason), the others were synchronized; the next run
retries the failed ones.

Flags:
`

// runSync implements "appkit sync".
func runSync(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sync", syncUsage, append([]envVar{envStore}, tracingEnv...), stderr)
	dsn := storeFlag(fs)
	app := fs.String("app", "", "the app's base address, http(s)://host:port")
	authID := authFlag(fs, "")
	account := accountFlag(fs, "")
	types := typesFlag(fs, "those of the last run, else the app's default types")
	filter := filterFlag(fs, "replaces the filter of the last run; a list filter also takes a comma-separated list")
	timeout := fs.Duration("timeout", 60*time.Second, "the longest wait for one answer of the app")
	full := fs.Bool("full", false, "a full refresh: no resume, every type asked without lastSynchronizedAt (what the app no longer has is removed)")
	if err := fs.parseFlags(args); err != nil {
		return err
	}
	if *app == "" {
		return usageErrorf("--app is required")
	}
	opts := syncer.Options{AppURL: *app, Auth: *authID, Types: *types, Filter: filter.texts(), RequestTimeout: *timeout, Account: account.last(), Full: *full}
	stopTracing, err := traceSync(ctx, &opts)
	if err != nil {
		return err
	}
	defer stopTracing()
	return syncOnce(ctx, *dsn, opts, stdout, stderr)
}

// syncOnce opens the store, runs the synchronization with progress on stderr
// and prints the summary; a run paused by an app that kept failing, or one
// in which some types failed and the others completed, is a partial error
// (exit 3).
func syncOnce(ctx context.Context, dsn string, opts syncer.Options, stdout, stderr io.Writer) error {
	st, err := store.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := runWithProgress(ctx, st, opts, stderr)
	if rep != nil {
		printReport(stdout, rep)
	}
	if errors.Is(err, syncer.ErrPaused) || errors.Is(err, syncer.ErrPartial) {
		return partialError(err)
	}
	return err
}

// runWithProgress runs syncer.Run with a progress line per type on a
// terminal, JSON log lines otherwise.
func runWithProgress(ctx context.Context, st *store.Store, opts syncer.Options, stderr io.Writer) (*syncer.Report, error) {
	if isTerminal(stderr) {
		p := &progressLine{w: stderr}
		opts.Progress = p.event
		opts.Log = func(msg string) { p.clear(); fmt.Fprintln(stderr, msg) }
		rep, err := syncer.Run(ctx, st, opts)
		p.clear()
		return rep, err
	}
	log := zerolog.New(stderr).With().Timestamp().Str("component", "sync").Logger()
	opts.Progress = func(e syncer.Event) {
		ev := log.Info().Str("type", e.Type).Int("pages", e.Pages).Int("items", e.Items).Dur("duration", e.Elapsed)
		if e.Done {
			ev.Bool("done", true).Msg("type synchronized")
			return
		}
		ev.Msg("page")
	}
	opts.Log = func(msg string) { log.Info().Msg(msg) }
	return syncer.Run(ctx, st, opts)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// progressLine draws one line per type: a moving bar (apps do not say how
// many items will come), items, pages and rate.
type progressLine struct {
	w    io.Writer
	open bool
	last time.Time
}

func (p *progressLine) event(e syncer.Event) {
	if !e.Done && time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	const width = 24
	bar := []rune(strings.Repeat("·", width))
	if e.Done {
		bar = []rune(strings.Repeat("█", width))
	} else {
		pos := e.Pages % (2 * width)
		if pos >= width {
			pos = 2*width - pos - 1
		}
		for i := max(0, pos-2); i <= pos; i++ {
			bar[i] = '█'
		}
	}
	rate := 0.0
	if s := e.Elapsed.Seconds(); s > 0 {
		rate = float64(e.Items) / s
	}
	fmt.Fprintf(p.w, "\r\033[K%-12s %s %9d items %6d pages %9.0f items/s", e.Type, string(bar), e.Items, e.Pages, rate)
	p.open = true
	if e.Done {
		fmt.Fprintln(p.w)
		p.open = false
	}
}

func (p *progressLine) clear() {
	if p.open {
		fmt.Fprint(p.w, "\r\033[K")
		p.open = false
	}
}

// printReport writes the summary: warnings and schema changes, one line
// per type (its status among them), then the failed types with their
// reasons, the values converted or left empty (one line per field) and the
// problems.
func printReport(w io.Writer, rep *syncer.Report) {
	fmt.Fprintf(w, "%s (account %q) → space %s, operation %s", rep.App, rep.Account, rep.Space, rep.OperationID)
	if rep.Resumed {
		fmt.Fprint(w, ", resumed")
	}
	fmt.Fprintln(w)
	for _, s := range rep.Warnings {
		fmt.Fprintln(w, "warning:", s)
	}
	// Added fields and created types are counted; renames and retirements
	// (which move values) are listed.
	types, fields := 0, 0
	for _, s := range rep.SchemaChanges {
		switch {
		case strings.HasPrefix(s, "created type "):
			types++
		case strings.HasPrefix(s, "added field "):
			fields++
		default:
			fmt.Fprintln(w, "schema:", s)
		}
	}
	if types+fields > 0 {
		fmt.Fprintf(w, "schema: %d types created, %d fields added\n", types, fields)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "type\tstatus\tmode\tpages\titems\tcreated\tupdated\tunchanged\tremoved\tskipped\t")
	for _, t := range rep.Types {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", t.Type, typeStatus(t), t.Mode, t.Pages, t.Items, t.Created, t.Updated, t.Unchanged, t.Removed, t.Skipped)
	}
	tw.Flush()
	printOutcomes(w, "", rep.Types)
	for _, t := range rep.Types {
		for _, p := range t.Problems {
			fmt.Fprintf(w, "%s: %s\n", t.Type, p)
		}
	}
}

// typeStatus is a type's status in the summary: completed, failed, or "-"
// for a type the run did not reach (a run stopped as a whole).
func typeStatus(t *syncer.TypeReport) string {
	if t.Status == "" {
		return "-"
	}
	return t.Status
}

// printOutcomes writes, each line after prefix, the failed types with
// their reasons, then one line per field whose values were converted or
// left empty (see valueLine).
func printOutcomes(w io.Writer, prefix string, types []*syncer.TypeReport) {
	for _, t := range types {
		if t.Status == syncer.TypeFailed {
			fmt.Fprintf(w, "%s%s failed: %s\n", prefix, t.Type, t.Error)
		}
	}
	for _, t := range types {
		for _, v := range t.Values {
			fmt.Fprintln(w, prefix+valueLine(t.Type, v))
		}
	}
}

// valueLine says what became of one field's values that did not come in
// their stated form: 'task.due: 1203 values coerced (a month-first locale
// date-time ...), e.g. "11/14/2023, 10:13 PM"', or 'task.size: 7 values
// left empty (want a number, got "big"), e.g. "big"'.
func valueLine(typ string, v *syncer.ValueReport) string {
	var b strings.Builder
	noun := "values"
	if v.Count == 1 {
		noun = "value"
	}
	fmt.Fprintf(&b, "%s.%s: %d %s %s", typ, v.Field, v.Count, noun, v.OutcomeText())
	if v.Detail != "" {
		fmt.Fprintf(&b, " (%s)", v.Detail)
	}
	if v.Example != "" {
		fmt.Fprintf(&b, ", e.g. %s", v.Example)
	}
	return b.String()
}
