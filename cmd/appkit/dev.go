package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/auth"
	"github.com/appkitgo/appkit/internal/devloop"
	"github.com/appkitgo/appkit/internal/host"
	"github.com/appkitgo/appkit/internal/secretmask"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
)

func init() {
	register(command{
		name:    "dev",
		summary: "build, run and synchronize an app, again at every change of its sources",
		run:     runDev,
	})
}

const devUsage = `Usage: appkit dev [DIR] [--addr HOST:PORT] [--store DSN] [--token TOKEN]
                  [--account KEY=VALUE ...] [--type ID ...] [--filter KEY=VALUE ...] [--full]
                  [--app-log PATH]

The live loop of an app's developer. Builds the app's main package in DIR
(default .) with "go build", runs it on a free loopback port (HOST is
127.0.0.1 and PORT that port: an app reading them with appkit.ListenAddr
listens on this machine only and answers only requests addressed to it
there), serves the embedded host on --addr with the store (on a loopback
address, the host too answers only requests addressed to it there),
registers the app with the account and synchronizes it; prints the host's
address, the GraphQL IDE's link and the API token. Then it watches the
module's Go files and go.mod: at every change it rebuilds; a build error
is printed and the last good app keeps serving (so does an app that builds
but exits before it answers; one that exits later is replaced by the good
build before it); otherwise the app is restarted (interrupted, then killed
after 10 s), its descriptor, config and schema are checked with the
conformance rules (the fast subset: no data pages), and it is synchronized
again. After each synchronization it prints what changed: the schema
(types and fields added, renamed, retired), the items created, updated,
unchanged and removed per type, and the fields that changed (old → new) of
a few items; then each call to the app that made upstream calls or failed
(method, path, the type a data page asked for, status, ms) with the
upstream calls the app reported below it (method, URL with secrets masked,
status, ms, size, error): at most 10 calls and 5 upstream calls each, then
how many more and the link to the run's page in the web console, which
also shows the bodies of the upstream calls (masked, cut at 2 KiB).

The app's output (stdout and stderr) goes to a log file, named once at the
start: by default the store's file with .app.log added, or for a store
that is no file a file under the user's cache directory named after the
app. It is appended to (an earlier session's output, a crash included,
stays) and rotated at 8 MiB (the file before is kept as PATH.1: at most
16 MiB). --app-log PATH picks the file; --app-log - shows the output on
stderr, as before. An app that exits before it answers or while serving
has its last 20 lines of output printed with dev's messages.

Keys, each followed by Enter, read from stdin when it is a terminal or a
pipe: f runs a full refresh now (as --full, for one run), s (or Enter
alone) a sync now, h or ? lists the keys (their one-line hint is printed
at the start). A run asked for while another is in progress starts after
it; runs never overlap. The end of stdin stops the reading, not dev. A
terminal is read only while dev is in its foreground: "appkit dev &" runs
without being stopped, and takes keys again after "fg".

The store is by default a file under the user's cache directory named
after the app (never inside DIR); --store, --token, --account, --type and
--filter mean what they mean for "appkit host" and "appkit sync". --full
makes every synchronization of the session a full refresh, as "appkit sync
--full" (no resume, every type asked without lastSynchronizedAt: items
changed by a change of the app's code are all read again, and what the app
no longer has is removed); without it a type whose schema gained fields is
still asked in full by itself. A second session on the same store picks
up the app's registration (moved to the app's new port), account and
sync; a run an earlier session left paused is resumed and its result
printed. Without --token a token is made once per file store and kept
beside it. SIGINT (Ctrl-C) or SIGTERM stops the app and the host; the
store keeps everything.

Flags:
`

// devSyncItems is how many items per type dev shows the changed fields of.
const devSyncItems = 3

// devApps is the apps service of a session: calls to apps at the
// addresses of apps.DefaultNetworks, and the bodies
// of the apps' upstream calls kept with each exchange: the developer's own
// host shows them on the console's run pages.
var devApps = appsSetup{networks: apps.DefaultNetworks, upstreamBodies: true}

// devEnv lists the environment variables "appkit dev" reads.
var devEnv = []envVar{envStore, {"APPKIT_TOKEN", "the default of --token"}}

// runDev implements "appkit dev".
func runDev(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	d, err := newDevSession(args, stdout, stderr)
	if err != nil {
		return err
	}
	return d.run(ctx)
}

// newDevSession reads the command line of "appkit dev".
func newDevSession(args []string, stdout, stderr io.Writer) (*devSession, error) {
	fs := newFlagSet("dev", devUsage, devEnv, stderr)
	addr := fs.String("addr", defaultHostAddr, "address the host listens on (host:port; port 0 picks a free one)")
	dsn := fs.String("store", os.Getenv(envStore.name), "store DSN: sqlite:PATH, sqlite::memory: or postgres://... (env APPKIT_STORE) — default: a file under the user's cache directory named after the app")
	token := fs.String("token", os.Getenv("APPKIT_TOKEN"), "the API token to register for the admin (env APPKIT_TOKEN; default one kept beside the store)")
	account := accountFlag(fs, "")
	types := typesFlag(fs, "the app's default types")
	filter := filterFlag(fs, "")
	full := fs.Bool("full", false, "every synchronization a full refresh: no resume, every type asked without lastSynchronizedAt")
	appLog := fs.String("app-log", "", "the file the app's output goes to (appended, rotated at 8 MiB; - : on stderr) — default: the store's file + .app.log, or a file under the user's cache directory for a store that is no file")
	// DIR may come before the flags.
	dir := "."
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		dir, args = args[0], args[1:]
	}
	if err := fs.parse(args); err != nil {
		return nil, err
	}
	switch {
	case fs.NArg() == 1 && dir == ".":
		dir = fs.Arg(0)
	case fs.NArg() > 0:
		return nil, usageErrorf("unexpected arguments %q", fs.Args())
	}
	if *token != "" {
		if err := auth.ValidateTokenValue(*token); err != nil {
			return nil, usageErrorf("--token: %v", err)
		}
	}
	d := &devSession{stdout: stdout, stderr: stderr, dir: dir, addr: *addr, dsn: *dsn, token: *token,
		account: account.last(), types: *types, full: *full, appLog: *appLog, input: devInput()}
	if flt := filter.texts(); len(flt) > 0 {
		d.filter = flt
	}
	return d, nil
}

// devSession is one "appkit dev": the host's apps service, the app's sync
// and what to print.
type devSession struct {
	stdout, stderr io.Writer
	// dir is the app's main package; addr the host's address, dsn the
	// store ("": the default file) and token the API token ("": made).
	dir, addr, dsn, token string
	account               map[string]string
	types                 []string
	filter                map[string][]string
	full                  bool // every run a full refresh
	// appLog is --app-log: the file the app's output goes to, "-" for
	// stderr, "" for the default file.
	appLog string
	// input is where the developer's keys are read from (nil: none).
	input io.Reader

	// runMu is held by a synchronization (after a rebuild, or asked for
	// with a key): two never overlap.
	runMu sync.Mutex

	st     *store.Store
	svc    *apps.Service
	hostAt string
	syncID string
	space  string
}

func (d *devSession) say(format string, args ...any) {
	fmt.Fprintf(d.stdout, "appkit dev: "+format+"\n", args...)
}

// run serves the host and runs the loop until ctx ends.
func (d *devSession) run(ctx context.Context) error {
	addr, dsn, token := d.addr, d.dsn, d.token
	dir, err := filepath.Abs(d.dir)
	if err != nil {
		return err
	}
	root, err := moduleRoot(dir)
	if err != nil {
		return err
	}
	tokenFile := ""
	if dsn == "" {
		if dsn, err = defaultDevStore(root); err != nil {
			return err
		}
	}
	if p, ok := strings.CutPrefix(dsn, "sqlite:"); ok && p != ":memory:" {
		tokenFile = p + ".token"
	}
	if token == "" {
		if token, err = devToken(tokenFile); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	st, err := store.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	d.st = st
	log := zerolog.New(d.stderr).Level(zerolog.WarnLevel).With().Timestamp().Str("component", "host").Logger()
	d.hostAt = "http://" + ln.Addr().String()
	svc, err := startApps(ctx, st, dsn, d.hostAt, devApps, log, d.stderr)
	if err != nil {
		return err
	}
	if svc == nil {
		return errors.New("the apps service needs a secret key: set APPKIT_SECRET_KEY")
	}
	d.svc = svc
	h, err := host.New(ctx, host.Config{Store: st, Token: token, Logger: log, Notice: d.stderr, Apps: host.AppsConfig{Service: svc},
		RateLimit: auth.DefaultRate, WorkspaceRateLimit: auth.DefaultWorkspaceRate})
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: guardLoopback(h, ln, ""), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	stopSched := runScheduler(ctx, svc)
	defer func() {
		stopSched()
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		defer cancel()
		srv.Shutdown(sctx)
		d.say("host stopped; the store %s keeps everything", dsn)
	}()
	d.say("host at %s (admin %s), store %s", d.hostAt, h.Admin().Email, dsn)
	d.say("API token: %s", token)
	d.say("GraphQL IDE: %s/api/graphql (the app's space is listed there once synchronized)", d.hostAt)

	bin, err := os.MkdirTemp("", "appkit-dev-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	port, err := devloop.FreePort()
	if err != nil {
		return err
	}
	cfg := devloop.Config{Dir: dir, Root: root, BinDir: bin, Port: port, AppOutput: d.stderr, Out: d.stdout, Ready: d.ready}
	if d.appLog != "-" {
		path := d.appLog
		if path == "" {
			if path, err = defaultDevAppLog(dsn, root); err != nil {
				return err
			}
		}
		applog, err := devloop.OpenAppLog(path, 0)
		if err != nil {
			return fmt.Errorf("%w (--app-log - shows the app's output on stderr)", err)
		}
		defer applog.Close()
		cfg.AppOutput, cfg.AppLog, cfg.Tail = applog, path, devCrashLines
		d.say("the app's output goes to %s (--app-log - shows it here)", path)
	}
	loopCtx, stopLoop := context.WithCancel(ctx)
	defer stopLoop()
	if d.input != nil {
		d.say("%s", devKeysHint)
		in := d.input
		if f, ok := in.(*os.File); ok {
			in = devloop.KeyInput(loopCtx, f) // a terminal: read in the foreground only
		}
		keysDone := make(chan struct{})
		go func() {
			defer close(keysDone)
			d.keys(loopCtx, in)
		}()
		// A run asked for with a key ends before the store is closed.
		defer func() {
			stopLoop()
			<-keysDone
		}()
	}
	looped := make(chan error, 1)
	go func() { looped <- devloop.Loop(loopCtx, cfg) }()
	select {
	case err := <-served:
		stopLoop()
		<-looped
		return fmt.Errorf("host: %w", err)
	case err := <-looped:
		return err
	}
}

// ready checks the app (re)started at url, registers it (by its id: the
// registration of an earlier session, at another port, moves to url) and
// synchronizes it, printing what changed.
func (d *devSession) ready(ctx context.Context, url string) error {
	d.runMu.Lock()
	defer d.runMu.Unlock()
	app, err := d.svc.Registry.RegisterMoving(ctx, apps.RegisterSpec{URL: url})
	if err != nil {
		return fmt.Errorf("register the app: %w", err)
	}
	for _, w := range app.Warnings {
		d.say("warning: %s", w)
	}
	d.space = app.Space
	d.check(ctx, app, url)
	before, err := devloop.TakeSnapshot(ctx, d.st, d.space)
	if err != nil {
		return err
	}
	created := false
	if d.syncID == "" {
		if created, err = d.setUp(ctx, app); err != nil {
			return err
		}
		d.say("GraphQL IDE of %s: %s/api/graphql/space/%s", app.Name, d.hostAt, app.Space)
	}
	return d.sync(ctx, before, created, d.full)
}

// setUp creates or updates the app's account and its sync (on demand
// only: dev runs it at every change); created reports a new sync, whose
// first run the scheduler starts at once.
func (d *devSession) setUp(ctx context.Context, app *apps.App) (created bool, err error) {
	syncs, err := d.svc.SyncService.Syncs(ctx, app.ID)
	if err != nil {
		return false, err
	}
	none := ""
	if len(syncs) == 0 {
		pick := ""
		if len(app.Descriptor.Authentication) == 1 {
			pick = app.Descriptor.Authentication[0].ID
		}
		fields, err := apps.TypedFields(app.Descriptor, pick, d.account)
		if err != nil {
			return false, err
		}
		acc, err := d.svc.Registry.CreateAccount(ctx, app.ID, "", fields)
		if err != nil {
			return false, fmt.Errorf("account: %w", err)
		}
		d.say("account %q set up", acc.Name)
		sy, err := d.svc.SyncService.CreateSync(ctx, apps.SyncSpec{App: app.ID, Account: acc.ID, Types: d.types, Filter: d.filter, Every: &none})
		if err != nil {
			return false, err
		}
		d.syncID = sy.ID
		return true, nil
	}
	sy := syncs[0]
	if len(d.account) > 0 {
		existing, err := d.svc.Registry.Account(ctx, sy.AccountID)
		if err != nil {
			return false, err
		}
		fields, err := apps.TypedFields(app.Descriptor, existing.Auth, d.account)
		if err != nil {
			return false, err
		}
		if _, err := d.svc.Registry.UpdateAccount(ctx, existing.ID, fields); err != nil {
			return false, fmt.Errorf("account: %w", err)
		}
	}
	if _, err := d.svc.SyncService.UpdateSync(ctx, sy.ID, apps.SyncSpec{Account: sy.AccountID, Types: d.types, Filter: d.filter, Every: &none}); err != nil {
		return false, err
	}
	d.syncID = sy.ID
	return false, nil
}

// check runs the conformance rules' fast subset and prints the failures.
func (d *devSession) check(ctx context.Context, app *apps.App, url string) {
	auth := ""
	if len(app.Descriptor.Authentication) == 1 {
		auth = app.Descriptor.Authentication[0].ID
	}
	var account map[string]any
	if len(d.account) > 0 {
		account, _ = apps.TypedFields(app.Descriptor, auth, d.account)
	}
	results, err := devloop.Check(ctx, url, auth, account, nil, d.types)
	if err != nil {
		d.say("conformance: %v", err)
		return
	}
	passed, failed := 0, 0
	for _, r := range results {
		switch r.Status {
		case conformance.Passed:
			passed++
		case conformance.Failed:
			failed++
			d.say("conformance: FAIL %s: expected %s, got %s", r.Name(), r.Expected, r.Got)
		}
	}
	d.say("conformance: descriptor, config and schema: %d checks passed, %d failed", passed, failed)
}

// sync runs the app's sync (a new sync's first run is the one the
// scheduler starts; later ones are asked for, a full refresh when full),
// waits for its end and prints what changed since before, then the calls
// to the app that made upstream calls or failed. A paused run
// (of this session or an earlier one) is resumed at once: its end is
// awaited, not its pause. d.runMu is held.
func (d *devSession) sync(ctx context.Context, before devloop.Snapshot, created, full bool) error {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var run *apps.Run
	for created && run == nil {
		runs, err := d.svc.SyncService.Runs(ctx, d.syncID, 1)
		if err != nil {
			return err
		}
		if len(runs) > 0 {
			run = runs[0]
			break
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-tick.C:
		}
	}
	if run == nil {
		var err error
		if run, err = d.svc.SyncService.RunWith(ctx, d.syncID, apps.RunSpec{Full: full}); err != nil {
			return err
		}
	}
	// A paused run answered by RunNow is resumed by the scheduler: one
	// more attempt, then running.
	pausedAttempts := -1
	if run.Status == apps.StatusPaused {
		pausedAttempts = run.Attempts
	}
	for run.Status == apps.StatusQueued || run.Status == apps.StatusRunning || (run.Status == apps.StatusPaused && run.Attempts == pausedAttempts) {
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-tick.C:
		}
		var err error
		if run, err = d.svc.SyncService.Run(ctx, run.ID); err != nil {
			return err
		}
	}
	if run.Exchanges == nil {
		// Read from the list (a new sync's first run, ended at once):
		// without its exchanges.
		if withEx, err := d.svc.SyncService.Run(ctx, run.ID); err == nil {
			run = withEx
		}
	}
	took := (time.Duration(run.DurationMS) * time.Millisecond).Round(time.Millisecond).String()
	if run.Report != nil && run.Report.Full {
		took += " (a full refresh)"
	}
	switch run.Status {
	case apps.StatusSucceeded:
		d.say("synced in %s", took)
	case apps.StatusPartial:
		// The completed types were synchronized: their changes are shown,
		// the failed ones named with their reasons.
		failed, all := 0, 0
		if run.Report != nil {
			for _, t := range run.Report.Types {
				all++
				if t.Status == syncer.TypeFailed {
					failed++
				}
			}
		}
		d.say("synced in %s, partially: %d of %d types failed (below), the others were synchronized", took, failed, all)
	default:
		if run.Report != nil && len(run.Report.Types) > 0 {
			printDevReport(d.stdout, run.Report, nil)
		}
		printDevExchanges(d.stdout, run, d.hostAt+"/runs/"+run.ID)
		return fmt.Errorf("sync %s: %s", run.Status, run.Error)
	}
	after, err := devloop.TakeSnapshot(ctx, d.st, d.space)
	if err != nil {
		return err
	}
	printDevReport(d.stdout, run.Report, devloop.Changes(before, after, devSyncItems))
	printDevExchanges(d.stdout, run, d.hostAt+"/runs/"+run.ID)
	return nil
}

// devKeysHint is the line that lists the keys.
const devKeysHint = "keys (then Enter): f a full refresh now, s (or Enter alone) a sync now, h the keys"

// maxKeyLine bounds a line of keys: a longer one is read to its end and
// refused.
const maxKeyLine = 256

// devInput is the process's standard input when the developer can type
// keys there: a terminal or a pipe (not /dev/null, not a file).
func devInput() io.Reader {
	st, err := os.Stdin.Stat()
	if err != nil || st.Mode()&(os.ModeCharDevice|os.ModeNamedPipe) == 0 {
		return nil
	}
	if null, err := os.Stat(os.DevNull); err == nil && os.SameFile(st, null) {
		return nil
	}
	return os.Stdin
}

// keys reads the developer's keys, one line each, from in and acts on
// them until ctx ends or in does (its end or an error only stops the
// reading: dev goes on). The reading goroutine of a terminal, blocked in
// a read, ends with the process.
func (d *devSession) keys(ctx context.Context, in io.Reader) {
	lines := make(chan string)
	go func() {
		defer close(lines)
		r := bufio.NewReaderSize(in, maxKeyLine)
		for {
			line, err := r.ReadSlice('\n')
			k := strings.TrimSpace(string(line))
			for errors.Is(err, bufio.ErrBufferFull) {
				k = "(a long line)"
				_, err = r.ReadSlice('\n')
			}
			if err != nil && (!errors.Is(err, io.EOF) || k == "") {
				return
			}
			select {
			case lines <- k:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return
		case k, ok := <-lines:
			if !ok {
				return
			}
			d.key(ctx, k)
		}
	}
}

// key acts on one line of keys.
func (d *devSession) key(ctx context.Context, k string) {
	switch strings.ToLower(k) {
	case "h", "?":
		d.say("%s", devKeysHint)
	case "f":
		d.runNow(ctx, true)
	case "s", "":
		d.runNow(ctx, d.full)
	default:
		if len(k) > 20 {
			k = k[:20] + "…"
		}
		d.say("unknown key %q: h then Enter lists the keys", k)
	}
}

// runNow synchronizes the app now (full: a full refresh), after the run
// in progress, if any: runs never overlap.
func (d *devSession) runNow(ctx context.Context, full bool) {
	what := "sync"
	if full {
		what = "full refresh"
	}
	if !d.runMu.TryLock() {
		d.say("a run is in progress: the %s starts after it", what)
		d.runMu.Lock()
	}
	defer d.runMu.Unlock()
	if ctx.Err() != nil {
		return
	}
	if d.syncID == "" {
		d.say("no %s yet: the app is synchronized once it first starts", what)
		return
	}
	d.say("a %s, asked for", what)
	before, err := devloop.TakeSnapshot(ctx, d.st, d.space)
	if err == nil {
		err = d.sync(ctx, before, false, full)
	}
	if err != nil && ctx.Err() == nil {
		d.say("%v", err)
	}
}

// printDevReport prints a sync's report: schema changes, counts and status
// per type, the failed types' reasons, the values converted or left empty
// (one line per field) and the changed fields of a few items.
func printDevReport(w io.Writer, rep *apps.RunReport, changes []devloop.ItemChange) {
	if rep == nil {
		return
	}
	for _, s := range rep.Warnings {
		fmt.Fprintln(w, "  warning:", s)
	}
	for _, s := range rep.SchemaChanges {
		fmt.Fprintln(w, "  schema:", s)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "  type\tstatus\tcreated\tupdated\tunchanged\tremoved\tskipped\t")
	for _, t := range rep.Types {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\t%d\t%d\t\n", t.Type, typeStatus(t), t.Created, t.Updated, t.Unchanged, t.Removed, t.Skipped)
	}
	tw.Flush()
	printOutcomes(w, "  ", rep.Types)
	for _, c := range changes {
		for _, f := range c.Fields {
			fmt.Fprintf(w, "  %s %q: %s: %q → %q\n", c.Type, c.ID, f.Field, f.Old, f.New)
		}
	}
}

// moduleRoot is the directory of the go.mod that holds dir.
func moduleRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("%s is not inside a Go module (no go.mod)", dir)
		}
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// defaultDevStore is the store of a module's app when --store is not
// given: a file under the user's cache directory, named after the module's
// directory (and a hash of its path: two apps of the same name do not
// share it).
func defaultDevStore(root string) (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no --store and no cache directory: %w", err)
	}
	dir := filepath.Join(cache, "appkit", "dev")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(root))
	name := unsafeName.ReplaceAllString(filepath.Base(root), "_") + "-" + hex.EncodeToString(sum[:4]) + ".db"
	return "sqlite:" + filepath.Join(dir, name), nil
}

// devToken returns the token kept in file, made and saved there the first
// time (file "" : a new token each time).
func devToken(file string) (string, error) {
	if file != "" {
		if b, err := os.ReadFile(file); err == nil {
			if t := strings.TrimSpace(string(b)); auth.ValidateTokenValue(t) == nil {
				return t, nil
			}
		}
	}
	r := make([]byte, 24)
	rand.Read(r)
	t := "dev-" + base64.RawURLEncoding.EncodeToString(r)
	if file != "" {
		if err := os.WriteFile(file, []byte(t+"\n"), 0o600); err != nil {
			return "", fmt.Errorf("keep the token: %w", err)
		}
	}
	return t, nil
}

// devCrashLines is how many of the app's last output lines dev prints when
// it exits before it answers or while serving.
const devCrashLines = 20

// defaultDevAppLog is the file the app's output goes to when --app-log is
// not given: beside a file store (its name + .app.log), else under the
// user's cache directory, named after the module as the default store is.
func defaultDevAppLog(dsn, root string) (string, error) {
	if p, ok := strings.CutPrefix(dsn, "sqlite:"); ok && p != ":memory:" {
		return p + ".app.log", nil
	}
	store, err := defaultDevStore(root)
	if err != nil {
		return "", fmt.Errorf("no --app-log: %w", err)
	}
	return strings.TrimSuffix(strings.TrimPrefix(store, "sqlite:"), ".db") + ".app.log", nil
}

// Bounds of the calls to the app dev prints after a synchronization.
const (
	devExchanges     = 10 // exchanges shown
	devUpstreamCalls = 5  // upstream calls shown under each
	devTextMax       = 200
)

// printDevExchanges prints the run's calls to the app that made upstream
// calls or failed, in the order they were made, each with its upstream
// calls indented below (method, URL, status, duration, size, error);
// bounded to devExchanges exchanges and devUpstreamCalls calls each, then
// how many more there are (the exchanges the run did not keep among them,
// even when none of those kept is shown) and the run's page in the
// console, runPage. What
// the app reported is shown cleaned: no control characters, cut long,
// the URL's user info and secret-looking query values masked.
func printDevExchanges(w io.Writer, run *apps.Run, runPage string) {
	var shown []apps.Exchange
	for _, ex := range run.Exchanges {
		if len(ex.Upstream) > 0 || ex.UpstreamDropped > 0 || exchangeFailed(ex) {
			shown = append(shown, ex)
		}
	}
	more := 0
	if run.Report != nil {
		more = run.Report.DroppedExchanges // not kept: maybe some of those
	}
	if len(shown) == 0 && more == 0 {
		return
	}
	fmt.Fprintln(w, "  calls to the app with upstream calls or failures:")
	if len(shown) > devExchanges {
		more += len(shown) - devExchanges
		shown = shown[:devExchanges]
	}
	for _, ex := range shown {
		line := "  " + devClean(ex.Method, 16) + " " + devClean(ex.Path, devTextMax)
		if t := requestedType(ex.Request); t != "" {
			line += " " + t
		}
		fmt.Fprintln(w, line+" → "+devOutcome(ex.Status, ex.DurationMS, -1, ex.Error))
		calls := ex.Upstream
		hidden := ex.UpstreamDropped
		if len(calls) > devUpstreamCalls {
			hidden += len(calls) - devUpstreamCalls
			calls = calls[:devUpstreamCalls]
		}
		for _, c := range calls {
			fmt.Fprintln(w, "      "+devClean(c.Method, 16)+" "+devMaskURL(c.URL)+" → "+devOutcome(c.Status, c.DurationMS, c.Bytes, c.Error))
		}
		if hidden > 0 {
			fmt.Fprintf(w, "      … %d more upstream calls\n", hidden)
		}
	}
	if more > 0 {
		fmt.Fprintf(w, "  … %d more (console: %s)\n", more, runPage)
	}
}

// exchangeFailed reports a call to the app that brought no answer or an
// error status.
func exchangeFailed(ex apps.Exchange) bool {
	return ex.Error != "" || ex.Status == 0 || ex.Status >= 400
}

// devOutcome is "STATUS, N ms[, SIZE][, error: ...]" (size < 0: none).
func devOutcome(status int, ms, size int64, errText string) string {
	s := "no answer"
	if status != 0 {
		s = strconv.Itoa(status)
	}
	s += fmt.Sprintf(", %d ms", ms)
	if size >= 0 && status != 0 {
		s += ", " + devSize(size)
	}
	if errText != "" {
		s += ", error: " + devClean(errText, devTextMax)
	}
	return s
}

// devSize is a size in bytes, KiB or MiB.
func devSize(n int64) string {
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + " KiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
}

var requestedTypeRE = regexp.MustCompile(`"requestedType"\s*:\s*"([^"\\]{1,100})"`)

// requestedType is the type a data request asked for, read from its body
// as kept (maybe cut): "" when there is none.
func requestedType(body string) string {
	if m := requestedTypeRE.FindStringSubmatch(body); m != nil {
		return devClean(m[1], 100)
	}
	return ""
}

// devMaskURL is an upstream URL as dev prints it: without its fragment
// (never sent), masked again as the host masks it (secretmask.Masker.URL:
// user info, secret-named query parameters), cleaned and cut.
func devMaskURL(raw string) string {
	raw, _, _ = strings.Cut(raw, "#")
	return devClean((*secretmask.Masker)(nil).URL(raw), devTextMax)
}

// devClean is text from the network made safe for a terminal: control
// characters (escape sequences among them) and invalid UTF-8 replaced,
// cut at max bytes (on a rune boundary) with "…".
func devClean(s string, max int) string {
	var b strings.Builder
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			r = utf8.RuneError
		}
		if b.Len()+utf8.RuneLen(r) > max {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}
