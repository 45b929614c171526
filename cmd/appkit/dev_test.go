package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// lineWaiter is the output of a command run in the background, which a
// test waits on: each wait looks for a pattern in what was written since
// the previous match.
type lineWaiter struct {
	testkit.Buffer
	seen int // the end of the last match
}

// devWait bounds one wait: a build on a loaded 2-core machine takes tens of
// seconds (the first one minutes with a cold cache).
const devWait = 5 * time.Minute

// waitFor waits until the output after the last match matches re and
// returns the submatches; the next wait starts after this match.
func (w *lineWaiter) waitFor(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	timeout := time.NewTimer(devWait)
	defer timeout.Stop()
	for {
		out, changed := w.Changes()
		rest := out[w.seen:]
		loc := re.FindStringSubmatchIndex(rest)
		if loc != nil {
			var subs []string
			for i := 0; i < len(loc); i += 2 {
				if loc[i] < 0 {
					subs = append(subs, "")
					continue
				}
				subs = append(subs, rest[loc[i]:loc[i+1]])
			}
			w.seen += loc[1]
			return subs
		}
		select {
		case <-changed:
		case <-timeout.C:
			t.Fatalf("no %q in the output after %s; output since the last match:\n%s", re, devWait, rest)
		}
	}
}

// editFile replaces old by new in the file (exactly once).
func editFile(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), old) != 1 {
		t.Fatalf("%s: %q is not there once:\n%s", path, old, b)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The live loop on an app made by "appkit new": the first sync; an edited
// value synchronized again by itself; a new struct field added to the
// schema by itself; a syntax error reported while the old app keeps
// serving and the host answering; the next good edit synchronized; Ctrl-C
// stops everything and the store keeps the items. On a file store and an
// in-memory one.
func TestDev(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a new module several times")
	}
	root := checkoutWithGo(t)
	// The new module has no go.sum yet: -mod=mod fills it from the module
	// cache, as "go mod tidy" would.
	t.Setenv("GOFLAGS", "-mod=mod -buildvcs=false")
	t.Setenv("GOWORK", "off")
	for _, tc := range []struct{ name, dsn string }{
		{"file", "sqlite:" + filepath.Join(t.TempDir(), "dev.db")},
		{"memory", "sqlite::memory:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "my-notes")
			var newOut, newErr bytes.Buffer
			if code := run(context.Background(), []string{"new", "my-notes", "--dir", dir, "--replace", root}, &newOut, &newErr); code != 0 {
				t.Fatalf("appkit new: exit %d\n%s", code, newErr.String())
			}
			appGo := filepath.Join(dir, "app", "app.go")
			out, errOut := &lineWaiter{}, &lineWaiter{}
			var stdout io.Writer = out
			if testing.Verbose() {
				stdout = io.MultiWriter(out, os.Stdout) // progress of a slow run, as it goes
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			exited := make(chan int, 1)
			go func() {
				exited <- run(ctx, []string{"dev", dir, "--addr", "127.0.0.1:0", "--store", tc.dsn, "--account", "token=demo"}, stdout, errOut)
			}()
			defer func() {
				if t.Failed() {
					t.Logf("stdout:\n%s\nstderr (tail):\n%s", out.String(), tail(errOut.String(), 3000))
				}
			}()
			hostURL := out.waitFor(t, regexp.MustCompile(`appkit dev: host at (http://\S+)`))[1]
			token := out.waitFor(t, regexp.MustCompile(`API token: (\S+)`))[1]
			appURL := out.waitFor(t, regexp.MustCompile(`app running at (http://\S+)`))[1]
			out.waitFor(t, regexp.MustCompile(`conformance: descriptor, config and schema: \d+ checks passed, 0 failed`))
			out.waitFor(t, regexp.MustCompile(`schema: added field my-notes\.note/name`))
			out.waitFor(t, regexp.MustCompile(`note\s+completed\s+120\s+0\s+0\s+0\s+0\n`))
			checkLoopbackOnly(t, appURL, hostURL)

			// An edited value: synchronized again, the change shown.
			editFile(t, appGo, "Name: n.Title,", `Name: n.Title + " (edited)",`)
			// (The first build of the new module wrote its go.mod: that
			// change may be the one whose rebuild picks the edit up.)
			out.waitFor(t, regexp.MustCompile(`note\s+completed\s+0\s+120\s+0\s+0\s+0\n\s+my-notes/note "n-1": name: "Note 1" → "Note 1 \(edited\)"`))

			// A new struct field: added to the schema.
			editFile(t, appGo, "\tDone    bool      `appkit:\"done\"`", "\tDone    bool      `appkit:\"done\"`\n\tWords   int       `appkit:\"words\"`")
			editFile(t, appGo, "Done: n.Done,", "Done: n.Done, Words: len(strings.Fields(n.Body)),")
			editFile(t, appGo, "\"strconv\"", "\"strconv\"\n\t\"strings\"")
			out.waitFor(t, regexp.MustCompile(`schema: added field my-notes\.note/words \(`))
			out.waitFor(t, regexp.MustCompile(`my-notes/note "n-1": words: "" → "\d+"`))

			// A syntax error: the compiler's message, and the last good app
			// still serving, the host still answering.
			editFile(t, appGo, "// New declares the app.", "// New declares the app.\nfunc {")
			out.waitFor(t, regexp.MustCompile(`build failed:\n(?s:.*?)app\.go:\d+:\d+: syntax error`))
			out.waitFor(t, regexp.MustCompile(`the last good app keeps serving at `+regexp.QuoteMeta(appURL)))
			resp, err := http.Get(appURL + "/")
			if err != nil {
				t.Fatalf("the last good app does not serve: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("the last good app answered %s", resp.Status)
			}
			req, _ := http.NewRequest(http.MethodGet, hostURL+"/api/apps", nil)
			req.Header.Set("Authorization", "Token "+token)
			resp, err = http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("the host does not answer: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("the host answered GET /api/apps with %s", resp.Status)
			}

			// The next good edit: synchronized.
			editFile(t, appGo, "// New declares the app.\nfunc {", "// New declares the app.")
			editFile(t, appGo, `" (edited)"`, `" (again)"`)
			out.waitFor(t, regexp.MustCompile(`note\s+completed\s+0\s+120\s+0\s+0\s+0\n\s+my-notes/note "n-1": name: "Note 1 \(edited\)" → "Note 1 \(again\)"`))

			// Ctrl-C: the app and the host stop; the store keeps the items.
			cancel()
			select {
			case code := <-exited:
				if code != 0 {
					t.Errorf("appkit dev: exit %d", code)
				}
			case <-time.After(devWait):
				t.Fatal("appkit dev did not stop")
			}
			out.waitFor(t, regexp.MustCompile(`app stopped`))
			out.waitFor(t, regexp.MustCompile(`host stopped`))
			if _, err := http.Get(appURL + "/"); err == nil {
				t.Error("the app still serves after Ctrl-C")
			}
			if tc.name == "file" {
				st := teststore.Open(t, tc.dsn)
				var n int
				cat, err := st.Catalog(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if err := st.DB().QueryRow("SELECT COUNT(*) FROM " + cat.Type("my-notes/note").Table).Scan(&n); err != nil || n != 120 {
					t.Errorf("the store holds %d notes after Ctrl-C (%v), want 120", n, err)
				}
			}
		})
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// The default store is a file under the user's cache directory, named
// after the app, never inside the app's directory; two apps of the same
// name get two stores.
func TestDefaultDevStore(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	t.Setenv("LocalAppData", cache)
	a, b := filepath.Join(t.TempDir(), "my notes"), filepath.Join(t.TempDir(), "my notes")
	da, err := defaultDevStore(a)
	if err != nil {
		t.Fatal(err)
	}
	db, _ := defaultDevStore(b)
	path := strings.TrimPrefix(da, "sqlite:")
	if !strings.HasPrefix(da, "sqlite:") || !strings.HasPrefix(path, cache) || strings.HasPrefix(path, a) ||
		!strings.HasPrefix(filepath.Base(path), "my_notes-") || da == db {
		t.Errorf("default stores %q and %q (cache %s)", da, db, cache)
	}
	again, _ := defaultDevStore(a)
	if again != da {
		t.Errorf("the default store moved: %q then %q", da, again)
	}
}

// The token made for a file store is kept beside it and used again.
func TestDevToken(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.db.token")
	first, err := devToken(file)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := devToken(file)
	other, _ := devToken("")
	if first != second || first == other || !strings.HasPrefix(first, "dev-") {
		t.Errorf("tokens %q, %q, %q", first, second, other)
	}
}

func TestDevRefused(t *testing.T) {
	t.Parallel()
	notModule := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--account", "token"}, 2, "want KEY=VALUE"},
		{[]string{"--filter", "x"}, 2, "want KEY=VALUE"},
		{[]string{"--token", "short"}, 2, "--token"},
		{[]string{"a", "b"}, 2, "unexpected arguments"},
		{[]string{notModule, "--store", "sqlite::memory:"}, 1, "not inside a Go module"},
	} {
		var out, errb bytes.Buffer
		if code := run(context.Background(), append([]string{"dev"}, tc.args...), &out, &errb); code != tc.code || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, errb.String(), tc.code, tc.want)
		}
	}
}

// checkLoopbackOnly: the dev app and the dev host answer only requests
// addressed to them by a loopback name (421 for a DNS-rebinding page's
// Host), and the app listens on no other interface.
func checkLoopbackOnly(t *testing.T, appURL, hostURL string) {
	t.Helper()
	for _, base := range []string{appURL, hostURL} {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		for host, refused := range map[string]bool{"rebind.evil.example:" + u.Port(): true, "localhost:" + u.Port(): false} {
			req, _ := http.NewRequest(http.MethodGet, base+"/", nil)
			req.Host = host
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("%s with Host %s: %v", base, host, err)
			}
			resp.Body.Close()
			if (resp.StatusCode == http.StatusMisdirectedRequest) != refused {
				t.Errorf("%s with Host %s: %s (refused: want %v)", base, host, resp.Status, refused)
			}
		}
	}
	u, _ := url.Parse(appURL)
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.To4() == nil || ipn.IP.IsLinkLocalUnicast() {
			continue
		}
		if c, err := net.DialTimeout("tcp", net.JoinHostPort(ipn.IP.String(), u.Port()), 10*time.Second); err == nil {
			c.Close()
			t.Errorf("the dev app answers on %s, not only on loopback", ipn.IP)
		}
		break
	}
}
