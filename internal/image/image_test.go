package image

import (
	"archive/tar"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/appkitgo/appkit/internal/image/imagetest"
)

// spec returns a valid spec over two small stand-in binaries.
func spec(t *testing.T) Spec {
	t.Helper()
	dir := t.TempDir()
	bin, hc := filepath.Join(dir, "app"), filepath.Join(dir, "hc")
	if err := os.WriteFile(bin, []byte("\x7fELF app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hc, []byte("\x7fELF healthcheck"), 0o755); err != nil {
		t.Fatal(err)
	}
	return Spec{
		Name: "demo", Binary: bin, Healthcheck: hc, CACerts: []byte("-----BEGIN CERTIFICATE-----\n"), Port: 8080, Arch: "amd64",
		Env: []string{"DEMO_SIZE=3"}, Labels: map[string]string{"org.opencontainers.image.title": "demo"},
		Created: time.Date(2026, 11, 24, 2, 0, 0, 0, time.UTC),
	}
}

func TestBuild_config(t *testing.T) {
	img, err := Build(spec(t))
	if err != nil {
		t.Fatal(err)
	}
	if mt, _ := img.MediaType(); mt != types.OCIManifestSchema1 {
		t.Errorf("manifest media type %s, want %s", mt, types.OCIManifestSchema1)
	}
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.MediaType != types.OCIConfigJSON {
		t.Errorf("config media type %s", m.Config.MediaType)
	}
	for i, l := range m.Layers {
		if l.MediaType != types.OCILayer {
			t.Errorf("layer %d media type %s, want %s", i, l.MediaType, types.OCILayer)
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if cf.OS != "linux" || cf.Architecture != "amd64" {
		t.Errorf("platform %s/%s", cf.OS, cf.Architecture)
	}
	if !slices.Equal(c.Entrypoint, []string{"/demo"}) || c.User != "65532:65532" {
		t.Errorf("entrypoint %q user %q", c.Entrypoint, c.User)
	}
	if _, ok := c.ExposedPorts["8080/tcp"]; !ok || len(c.ExposedPorts) != 1 {
		t.Errorf("exposed ports %v", c.ExposedPorts)
	}
	for _, want := range []string{"PORT=8080", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt", "DEMO_SIZE=3"} {
		if !slices.Contains(c.Env, want) {
			t.Errorf("env %q lacks %s", c.Env, want)
		}
	}
	if c.Healthcheck == nil || !slices.Equal(c.Healthcheck.Test, []string{"CMD", "/healthcheck"}) || c.Healthcheck.Interval != 30*time.Second {
		t.Errorf("health check %+v", c.Healthcheck)
	}
	if c.Labels["org.opencontainers.image.title"] != "demo" {
		t.Errorf("labels %v", c.Labels)
	}
	if len(cf.History) != 2 || len(cf.RootFS.DiffIDs) != 2 {
		t.Errorf("history %d entries, %d diff ids; want 2 and 2", len(cf.History), len(cf.RootFS.DiffIDs))
	}
}

func TestBuild_files(t *testing.T) {
	img, err := Build(spec(t))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Layers(img)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{
		"drwxr-xr-x 0:0 /etc",
		"-rw-r--r-- 0:0 /etc/passwd",
		"-rw-r--r-- 0:0 /etc/group",
		"drwxr-xr-x 0:0 /etc/ssl",
		"drwxr-xr-x 0:0 /etc/ssl/certs",
		"-rw-r--r-- 0:0 /etc/ssl/certs/ca-certificates.crt",
		"drwxr-xr-x 0:0 /home",
		"drwx------ 65532:65532 /home/nonroot",
		"dtrwxrwxrwx 0:0 /tmp",
	}, {
		"-rwxr-xr-x 0:0 /demo",
		"-rwxr-xr-x 0:0 /healthcheck",
	}}
	if !slicesEqual(got, want) {
		t.Errorf("layers:\n%q\nwant\n%q", got, want)
	}
	passwd := fileIn(t, img, "etc/passwd")
	if !strings.Contains(passwd, "nonroot:x:65532:65532:") {
		t.Errorf("/etc/passwd = %q", passwd)
	}
	if got := fileIn(t, img, "demo"); got != "\x7fELF app" {
		t.Errorf("/demo = %q", got)
	}
}

func slicesEqual(a, b [][]string) bool {
	return slices.EqualFunc(a, b, func(x, y []string) bool { return slices.Equal(x, y) })
}

// fileIn returns the content of a file in the image's layers.
func fileIn(t *testing.T, img v1.Image, path string) string {
	t.Helper()
	ls, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		rc, err := l.Uncompressed()
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if err != nil {
				break
			}
			if h.Name == path {
				b, _ := io.ReadAll(tr)
				rc.Close()
				return string(b)
			}
		}
		rc.Close()
	}
	t.Fatalf("no %s in the image", path)
	return ""
}

// Equal inputs give the same image, so a rebuild changes nothing.
func TestBuild_reproducible(t *testing.T) {
	s := spec(t)
	a, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	da, _ := a.Digest()
	db, _ := b.Digest()
	if da != db {
		t.Errorf("two builds: %s and %s", da, db)
	}
	s.Port = 9090
	c, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	if dc, _ := c.Digest(); dc == da {
		t.Error("another port gave the same image")
	}
}

func TestBuild_noHealthcheck(t *testing.T) {
	s := spec(t)
	s.Healthcheck = ""
	img, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	cf, _ := img.ConfigFile()
	if cf.Config.Healthcheck != nil {
		t.Errorf("health check %+v without a program", cf.Config.Healthcheck)
	}
}

func TestBuild_refused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Spec)
		want   string
	}{
		{"upper-case name", func(s *Spec) { s.Name = "Demo" }, "lower-case"},
		{"path as name", func(s *Spec) { s.Name = "../demo" }, "lower-case"},
		{"health-check name", func(s *Spec) { s.Name = "healthcheck" }, "taken"},
		{"no binary", func(s *Spec) { s.Binary = "" }, "no binary"},
		{"missing binary", func(s *Spec) { s.Binary = "/nonexistent/app" }, "read /demo"},
		{"no certificates", func(s *Spec) { s.CACerts = []byte(" \n") }, "CA certificates"},
		{"port 0", func(s *Spec) { s.Port = 0 }, "port 0"},
		{"port too high", func(s *Spec) { s.Port = 70000 }, "port 70000"},
		{"no arch", func(s *Spec) { s.Arch = "" }, "architecture"},
		{"bad env", func(s *Spec) { s.Env = []string{"=x"} }, "KEY=VALUE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := spec(t)
			tc.change(&s)
			_, err := Build(s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Build = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestWriteLayout(t *testing.T) {
	s := spec(t)
	img, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "oci")
	if err := WriteLayout(dir, "latest", img); err != nil {
		t.Fatal(err)
	}
	// A rebuild under the same tag replaces the image; another tag adds one.
	s.Port = 9090
	img2, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteLayout(dir, "latest", img2); err != nil {
		t.Fatal(err)
	}
	if err := WriteLayout(dir, "v1", img); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "oci-layout"))
	if err != nil || !strings.Contains(string(b), `"imageLayoutVersion"`) {
		t.Fatalf("oci-layout = %s, %v", b, err)
	}
	p, im := imagetest.Index(t, dir)
	tags := map[string]v1.Hash{}
	for _, d := range im.Manifests {
		if d.MediaType != types.OCIManifestSchema1 {
			t.Errorf("index entry media type %s", d.MediaType)
		}
		tags[d.Annotations[RefNameAnnotation]] = d.Digest
	}
	d1, _ := img.Digest()
	d2, _ := img2.Digest()
	if len(tags) != 2 || tags["latest"] != d2 || tags["v1"] != d1 {
		t.Errorf("index %v, want latest=%s v1=%s", tags, d2, d1)
	}
	_, cf := imagetest.Image(t, p, d2)
	if _, ok := cf.Config.ExposedPorts["9090/tcp"]; !ok {
		t.Errorf("the layout's latest image exposes %v", cf.Config.ExposedPorts)
	}
	for _, bad := range []string{"", "a:b", "a/b", "a b"} {
		if err := WriteLayout(dir, bad, img); err == nil {
			t.Errorf("tag %q accepted", bad)
		}
	}
}

func TestWriteTarball(t *testing.T) {
	img, err := Build(spec(t))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "demo.tar")
	if err := WriteTarball(path, "appkit-demo:1.0", img); err != nil {
		t.Fatal(err)
	}
	// docker load and podman load read manifest.json: the config, the
	// layers and the name.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	var manifest []struct {
		Config   string
		RepoTags []string
		Layers   []string
	}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name == "manifest.json" {
			if err := json.NewDecoder(tr).Decode(&manifest); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(manifest) != 1 || len(manifest[0].Layers) != 2 || len(manifest[0].RepoTags) != 1 || !strings.HasSuffix(manifest[0].RepoTags[0], "appkit-demo:1.0") {
		t.Fatalf("manifest.json = %+v", manifest)
	}
	imagetest.CheckTarball(t, path, img)
	if err := WriteTarball(filepath.Join(t.TempDir(), "x.tar"), "Not A Ref!", img); err == nil {
		t.Error("a malformed reference was accepted")
	}
}
