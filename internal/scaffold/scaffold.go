// Package scaffold writes a new app built with appkit, in its own module:
// main, handlers, tests (the conformance suite included), Dockerfile and
// README, from templates embedded in the binary. What it writes builds and
// passes its tests as generated, for every kind and authentication.
package scaffold

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/template"
)

//go:embed templates/*.tmpl templates/*.yaml
var templates embed.FS

// The kinds and authentications a new app may have.
var (
	Kinds = []string{"sync", "action"}
	Auths = []string{"none", "token", "oauth2"}
)

// Options describe the app to write.
type Options struct {
	// Name is the app's name: its id, binary and directory. Lower-case
	// letters, digits and '-', starting with a letter.
	Name string
	// Module is the module path; empty means "example.com/" + Name.
	Module string
	// Kind is "sync" or "action".
	Kind string
	// Auth is "none", "token" or "oauth2".
	Auth string
	// AppkitVersion is the required version of github.com/appkitgo/appkit.
	AppkitVersion string
	// Replace, when set, replaces github.com/appkitgo/appkit with this
	// directory in go.mod (a local checkout).
	Replace string
	// GoVersion is the go directive, such as "1.26.0" (the default).
	GoVersion string
}

// files maps each template to the file it writes, for the kind named
// (every kind when empty); a raw file is copied as it is. A sync app reads
// an HTTP API through appkit/upstream; fakeapi stands in for that API in
// its tests (and its demo), and TestNotes.yaml holds the answers recorded
// from it that TestNotes replays (appkittest.Record).
var files = []struct {
	tmpl, path, kind string
	raw              bool
}{
	{"go.mod.tmpl", "go.mod", "", false},
	{"main.go.tmpl", "main.go", "", false},
	{"main_test.go.tmpl", "main_test.go", "", false},
	{"sync_app.go.tmpl", "app/app.go", "sync", false},
	{"sync_app_test.go.tmpl", "app/app_test.go", "sync", false},
	{"fakeapi.go.tmpl", "fakeapi/fakeapi.go", "sync", false},
	{"TestNotes.yaml", "app/testdata/TestNotes.yaml", "sync", true},
	{"app.go.tmpl", "app/app.go", "action", false},
	{"app_test.go.tmpl", "app/app_test.go", "action", false},
	{"Dockerfile.tmpl", "Dockerfile", "", false},
	{"README.md.tmpl", "README.md", "", false},
	{"gitignore.tmpl", ".gitignore", "", false},
}

var (
	namePattern    = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)
	modulePattern  = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9._~/-]{0,199}$`)
	versionPattern = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]*)?$`)
	goVersion      = regexp.MustCompile(`^1\.[0-9]+(\.[0-9]+)?$`)
)

// check reports the first problem of the options and fills the defaults.
func (o *Options) check() error {
	if !namePattern.MatchString(o.Name) || strings.HasSuffix(o.Name, "-") {
		return fmt.Errorf("name %q: want lower-case letters, digits and '-', starting with a letter, at most 40", o.Name)
	}
	if o.Module == "" {
		o.Module = "example.com/" + o.Name
	}
	if !modulePattern.MatchString(o.Module) || strings.Contains(o.Module, "//") || strings.Contains(o.Module, "..") || strings.HasSuffix(o.Module, "/") {
		return fmt.Errorf("module %q is not a module path", o.Module)
	}
	if !slices.Contains(Kinds, o.Kind) {
		return fmt.Errorf("kind %q: want one of %s", o.Kind, strings.Join(Kinds, ", "))
	}
	if !slices.Contains(Auths, o.Auth) {
		return fmt.Errorf("auth %q: want one of %s", o.Auth, strings.Join(Auths, ", "))
	}
	if !versionPattern.MatchString(o.AppkitVersion) {
		return fmt.Errorf("appkit version %q is not a semantic version such as v1.2.3", o.AppkitVersion)
	}
	if o.GoVersion == "" {
		o.GoVersion = "1.26.0"
	}
	if !goVersion.MatchString(o.GoVersion) {
		return fmt.Errorf("go version %q: want 1.N or 1.N.M", o.GoVersion)
	}
	if strings.ContainsAny(o.Replace, "\n\r\"`") {
		return fmt.Errorf("replace directory %q holds a character go.mod cannot take", o.Replace)
	}
	return nil
}

// data is what the templates see.
type data struct {
	Options
	Title               string
	Sync, Action        bool
	None, Token, OAuth2 bool
	EnvPrefix           string
	APIPad, TokenPad    string
	AppImports          []string
	// GoMinor is the Go version without its patch, for the Dockerfile's
	// golang image.
	GoMinor string
}

func newData(o Options) data {
	d := data{
		Options: o,
		Sync:    o.Kind == "sync", Action: o.Kind == "action",
		None: o.Auth == "none", Token: o.Auth == "token", OAuth2: o.Auth == "oauth2",
		EnvPrefix: strings.ToUpper(strings.ReplaceAll(o.Name, "-", "_")),
	}
	parts := strings.Split(o.GoVersion, ".")
	d.GoMinor = strings.Join(parts[:min(2, len(parts))], ".")
	words := strings.Split(o.Name, "-")
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	d.Title = strings.Join(words, " ")
	pad := func(s string) string { return strings.Repeat(" ", max(1, 26-len(s))) }
	d.APIPad, d.TokenPad = pad(d.EnvPrefix+"_API_URL"), pad(d.EnvPrefix+"_TOKEN")
	// The imports of the action app's app.go.
	imports := []string{"context", "sync", "time", "strings"}
	if d.Token {
		imports = append(imports, "crypto/subtle")
	}
	if d.OAuth2 {
		imports = append(imports, "encoding/json", "fmt", "io", "net/http")
	}
	slices.Sort(imports)
	d.AppImports = slices.Compact(imports)
	return d
}

// Render returns the files of the app described by o, by path relative
// to the app's directory; Go files are gofmt-ed.
func Render(o Options) (map[string][]byte, error) {
	if err := o.check(); err != nil {
		return nil, fmt.Errorf("scaffold: %w", err)
	}
	d := newData(o)
	out := map[string][]byte{}
	for _, f := range files {
		if f.kind != "" && f.kind != o.Kind {
			continue
		}
		if f.raw {
			b, err := templates.ReadFile("templates/" + f.tmpl)
			if err != nil {
				return nil, fmt.Errorf("scaffold: %s: %w", f.tmpl, err)
			}
			out[f.path] = b
			continue
		}
		t, err := template.New(f.tmpl).Option("missingkey=error").ParseFS(templates, "templates/"+f.tmpl)
		if err != nil {
			return nil, fmt.Errorf("scaffold: template %s: %w", f.tmpl, err)
		}
		var b bytes.Buffer
		if err := t.Execute(&b, d); err != nil {
			return nil, fmt.Errorf("scaffold: %s: %w", f.path, err)
		}
		src := b.Bytes()
		if strings.HasSuffix(f.path, ".go") {
			if src, err = format.Source(src); err != nil {
				return nil, fmt.Errorf("scaffold: %s does not parse as generated: %w", f.path, err)
			}
		}
		out[f.path] = src
	}
	return out, nil
}

// Write writes the app into dir, which must not exist or be empty, and
// returns the paths written, sorted.
func Write(dir string, o Options) ([]string, error) {
	files, err := Render(o)
	if err != nil {
		return nil, err
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return nil, fmt.Errorf("scaffold: %s exists and is not empty", dir)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("scaffold: %w", err)
	}
	var paths []string
	for p, b := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, fmt.Errorf("scaffold: %w", err)
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			return nil, fmt.Errorf("scaffold: %w", err)
		}
		paths = append(paths, p)
	}
	slices.Sort(paths)
	return paths, nil
}
