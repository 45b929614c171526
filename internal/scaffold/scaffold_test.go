package scaffold

import (
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func opts(kind, auth string) Options {
	return Options{Name: "my-app", Kind: kind, Auth: auth, AppkitVersion: "v1.2.3"}
}

// Every combination renders every file; the Go files parse, and what the
// options say shows up where it should. (cmd/appkit's tests build and test
// each combination.)
func TestRender_everyCombination(t *testing.T) {
	for _, kind := range Kinds {
		for _, auth := range Auths {
			files, err := Render(opts(kind, auth))
			if err != nil {
				t.Fatalf("%s/%s: %v", kind, auth, err)
			}
			if want := map[string]int{"sync": 10, "action": 8}[kind]; len(files) != want {
				t.Errorf("%s/%s: %d files, want %d", kind, auth, len(files), want)
			}
			for _, p := range []string{"fakeapi/fakeapi.go", "app/testdata/TestNotes.yaml"} {
				if _, ok := files[p]; ok != (kind == "sync") {
					t.Errorf("%s/%s: %s written: %v", kind, auth, p, ok)
				}
			}
			if rec := string(files["app/testdata/TestNotes.yaml"]); kind == "sync" && (!strings.Contains(rec, "url: http://") || !strings.Contains(rec, "'***'")) {
				t.Errorf("%s/%s: the recorded fixture has no recorded request with its token masked", kind, auth)
			}
			if kind == "sync" && !strings.Contains(string(files["app/app_test.go"]), "appkittest.Record(t, opts...)") {
				t.Errorf("%s/%s: app_test.go does not replay the recorded fixture", kind, auth)
			}
			for path, src := range files {
				if strings.HasSuffix(path, ".go") {
					if _, err := parser.ParseFile(token.NewFileSet(), path, src, parser.AllErrors); err != nil {
						t.Errorf("%s/%s: %s: %v", kind, auth, path, err)
					}
				}
				if strings.Contains(string(src), "<no value>") {
					t.Errorf("%s/%s: %s holds <no value>", kind, auth, path)
				}
			}
			mod := string(files["go.mod"])
			if !strings.HasPrefix(mod, "module example.com/my-app\n\ngo 1.26.0\n") || !strings.Contains(mod, "require github.com/appkitgo/appkit v1.2.3") || strings.Contains(mod, "replace") {
				t.Errorf("%s/%s: go.mod:\n%s", kind, auth, mod)
			}
			app := string(files["app/app.go"])
			if (kind == "sync") != strings.Contains(app, "Sync: &appkit.Sync{") || (kind == "action") != strings.Contains(app, "Actions: []appkit.Action{") {
				t.Errorf("%s/%s: app.go declares the wrong kind", kind, auth)
			}
			wantAuth := map[string]string{"none": "appkit.NoAuth()", "token": "appkit.TokenAuth(", "oauth2": "appkit.OAuth2Auth("}[auth]
			if !strings.Contains(app, wantAuth) {
				t.Errorf("%s/%s: app.go lacks %s", kind, auth, wantAuth)
			}
			// A sync app reads its API through the upstream toolkit, with
			// the account's credentials.
			if kind == "sync" {
				wantUpstream := map[string]string{"none": "upstream.Client{", "token": `upstream.Bearer("token")`, "oauth2": "upstream.OAuth2(flow)"}[auth]
				if !strings.Contains(app, "upstream.List[apiNote, Note]{") || !strings.Contains(app, wantUpstream) {
					t.Errorf("%s/%s: app.go does not read the API with upstream.List and %s", kind, auth, wantUpstream)
				}
			}
			if df := string(files["Dockerfile"]); !strings.Contains(df, "FROM golang:1.26 AS build") || !strings.Contains(df, `ENTRYPOINT ["/my-app"]`) || !strings.Contains(df, "HEALTHCHECK") || !strings.Contains(df, "USER nonroot") {
				t.Errorf("%s/%s: Dockerfile:\n%s", kind, auth, df)
			}
			if !strings.Contains(string(files["main_test.go"]), "conformance.Test(") || !strings.Contains(string(files["app/app_test.go"]), "conformance.Test(") {
				t.Errorf("%s/%s: a test file does not run the conformance suite", kind, auth)
			}
		}
	}
}

func TestRender_replaceAndModule(t *testing.T) {
	o := opts("sync", "token")
	o.Module, o.Replace = "github.com/me/notes", "/src/appkit"
	files, err := Render(o)
	if err != nil {
		t.Fatal(err)
	}
	if mod := string(files["go.mod"]); !strings.Contains(mod, "module github.com/me/notes\n") || !strings.HasSuffix(mod, "replace github.com/appkitgo/appkit => /src/appkit\n") {
		t.Errorf("go.mod:\n%s", mod)
	}
	if !strings.Contains(string(files["main.go"]), `"github.com/me/notes/app"`) || !strings.Contains(string(files["main.go"]), "MY_APP_API_URL") {
		t.Errorf("main.go does not import the app package of the module or read MY_APP_API_URL")
	}
}

func TestRender_refused(t *testing.T) {
	for _, tc := range []struct {
		change func(*Options)
		want   string
	}{
		{func(o *Options) { o.Name = "" }, "name"},
		{func(o *Options) { o.Name = "My App" }, "name"},
		{func(o *Options) { o.Name = "app-" }, "name"},
		{func(o *Options) { o.Name = "9lives" }, "name"},
		{func(o *Options) { o.Name = "../evil" }, "name"},
		{func(o *Options) { o.Kind = "both" }, "kind"},
		{func(o *Options) { o.Auth = "basic" }, "auth"},
		{func(o *Options) { o.Module = "example.com//x" }, "module"},
		{func(o *Options) { o.Module = "example.com/x\"y" }, "module"},
		{func(o *Options) { o.AppkitVersion = "latest" }, "version"},
		{func(o *Options) { o.GoVersion = "2" }, "go version"},
		{func(o *Options) { o.Replace = "/tmp/x\nrequire evil v1.0.0" }, "replace"},
	} {
		o := opts("sync", "none")
		tc.change(&o)
		if _, err := Render(o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error about %s", o, err, tc.want)
		}
	}
}

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my-app")
	paths, err := Write(dir, opts("action", "none"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "Dockerfile", "README.md", "app/app.go", "app/app_test.go", "go.mod", "main.go", "main_test.go"} // no fakeapi: an action app
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Errorf("wrote %v", paths)
	}
	if _, err := os.Stat(filepath.Join(dir, "app", "app.go")); err != nil {
		t.Error(err)
	}
	if _, err := Write(dir, opts("action", "none")); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("a second Write into the same directory: %v", err)
	}
}

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// The files of each combination, compared with testdata/<kind>-<auth>.golden
// (all files, each after a "-- path --" line), so that a change of the
// templates shows in review as a change of what users get. Refresh them
// with go test ./internal/scaffold -update.
func TestRender_golden(t *testing.T) {
	for _, kind := range Kinds {
		for _, auth := range Auths {
			files, err := Render(Options{Name: "notes", Kind: kind, Auth: auth, AppkitVersion: "v0.1.0"})
			if err != nil {
				t.Fatal(err)
			}
			paths := make([]string, 0, len(files))
			for p := range files {
				paths = append(paths, p)
			}
			slices.Sort(paths)
			var b strings.Builder
			for _, p := range paths {
				fmt.Fprintf(&b, "-- %s --\n%s", p, files[p])
			}
			golden := filepath.Join("testdata", kind+"-"+auth+".golden")
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/scaffold -update)", err)
			}
			if b.String() != string(want) {
				t.Errorf("%s/%s differs from %s (go test ./internal/scaffold -update, then review the diff)", kind, auth, golden)
			}
		}
	}
}
