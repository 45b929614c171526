package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/appkitgo/appkit/internal/scaffold"
)

func init() {
	register(command{
		name:    "new",
		summary: "write a new app built with appkit, in its own module",
		run:     runNew,
	})
}

const newUsage = `Usage: appkit new NAME [--kind sync|action] [--auth none|token|oauth2] [--dir DIR] [--module PATH] [--replace DIR]

Writes a new app into DIR (default ./NAME), in its own Go module that
depends on appkit: main.go, app/app.go (the declaration and its handlers),
tests with appkittest and the conformance suite, a Dockerfile and a README.
It builds and passes its tests as generated:

  cd NAME && go mod tidy && go test ./...

--kind sync (the default) writes a synchronization app over an HTTP API: a
type declared by a struct, its data read from the API's list endpoint with
appkit's upstream toolkit (credentials, Link paging, failures mapped onto
the protocol), a filter, and fakeapi, a stand-in of the API for its tests
and demo. --kind action writes an external-action app. --auth chooses how
accounts are set up: none, an API token, or OAuth 2 with a provider.
--replace DIR points the module at a local checkout of appkit; a
development build of this command run inside a checkout uses that checkout,
and elsewhere the checkout it was built from when it is still there (no
release of appkit exists yet: without a checkout, it says so and prints
the replace to add).

Flags:
`

// runNew implements "appkit new".
func runNew(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("new", newUsage, nil, stderr)
	kind := fs.String("kind", "sync", "sync or action")
	auth := fs.String("auth", "token", "none, token or oauth2")
	dir := fs.String("dir", "", "the directory to write (default ./NAME)")
	module := fs.String("module", "", "the module path (default example.com/NAME)")
	replace := fs.String("replace", "", "a local appkit checkout to use instead of the released module")
	version := fs.String("appkit-version", "", "the appkit version to require (default: this CLI's)")
	name, err := fs.parseOne(args, "NAME")
	if err != nil {
		return err
	}
	if *dir == "" {
		*dir = name
	}
	note := ""
	if *version == "" {
		*version, note = appkitVersion()
	}
	missing := false
	if *replace == "" && note != "" {
		// A development build: the app uses the clone it runs in, or the
		// one it was built from; without either, say what is missing.
		wd, _ := os.Getwd()
		*replace, note = localCheckout(wd, buildSource())
		missing = *replace == ""
	} else if *replace != "" {
		abs, err := filepath.Abs(*replace)
		if err != nil {
			return usageErrorf("--replace: %v", err)
		}
		*replace, note = abs, ""
	}
	opts := scaffold.Options{Name: name, Module: *module, Kind: *kind, Auth: *auth, AppkitVersion: *version, Replace: *replace}
	// Options the templates refuse and a taken directory are usage errors
	// (nothing written); a failed write is a failure.
	if _, err := scaffold.Render(opts); err != nil {
		return usageErrorf("%s", strings.TrimPrefix(err.Error(), "scaffold: "))
	}
	if entries, err := os.ReadDir(*dir); err == nil && len(entries) > 0 {
		return usageErrorf("%s exists and is not empty", *dir)
	}
	paths, err := scaffold.Write(*dir, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "appkit new: wrote %s (%s app, auth %s):\n", *dir, *kind, *auth)
	for _, p := range paths {
		fmt.Fprintf(stdout, "  %s\n", p)
	}
	if note != "" {
		fmt.Fprintln(stdout, note)
	}
	if missing {
		fmt.Fprintf(stdout, "Next: cd %s && go mod edit -replace github.com/appkitgo/appkit=/path/to/appkit && go mod tidy && go test ./...\n", *dir)
		return nil
	}
	fmt.Fprintf(stdout, "Next: cd %s && go mod tidy && go test ./...\n", *dir)
	return nil
}

// noRelease says what a development build outside any checkout cannot
// give the new app.
const noRelease = "Note: no release of appkit exists yet, so go.mod's github.com/appkitgo/appkit v0.0.0 cannot be downloaded " +
	"and this appkit is a development build whose source is not on this machine. The app needs a local clone of appkit " +
	"(git clone https://github.com/appkitgo/appkit): point go.mod at it as below, or run appkit new again with --replace DIR."

// localCheckout is the appkit checkout a development build points a new
// app at, with the note saying so: the one holding wd, else the one the
// build was compiled from (source, the path of this file in the build,
// when it is still there); "" and what is missing when there is none.
func localCheckout(wd, source string) (string, string) {
	if wd != "" {
		if root := appkitCheckout(wd); root != "" {
			return root, "go.mod uses the appkit checkout at " + root + " (a replace directive)."
		}
	}
	if filepath.IsAbs(source) {
		if root := appkitCheckout(filepath.Dir(source)); root != "" {
			return root, "go.mod uses the appkit checkout this appkit was built from, " + root + " (a replace directive)."
		}
	}
	return "", noRelease
}

// buildSource is the path of this file as compiled: absolute in a
// development build, a module path under -trimpath.
func buildSource() string {
	_, file, _, _ := runtime.Caller(0)
	return file
}

// appkitCheckout returns the directory of the appkit module that holds
// dir, or "": the nearest directory up from dir whose go.mod declares the
// module github.com/appkitgo/appkit.
func appkitCheckout(dir string) string {
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			for line := range strings.Lines(string(b)) {
				if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
					if strings.Trim(f[1], `"`) == "github.com/appkitgo/appkit" {
						return dir
					}
					break
				}
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// appkitVersion is the appkit version this CLI was built from, or v0.0.0
// with a note for a development build.
func appkitVersion() (string, string) {
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Path == "github.com/appkitgo/appkit" &&
		strings.HasPrefix(info.Main.Version, "v") && !strings.Contains(info.Main.Version, "devel") {
		return info.Main.Version, ""
	}
	return "v0.0.0", noRelease
}
