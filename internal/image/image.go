// Package image assembles the container image of an app built with appkit
// without a container daemon and without a base image from a registry: the
// app's static binary and the health-check program (package
// internal/image/healthcheck) as one layer, on a base layer holding only
// /etc/passwd and /etc/group with a non-root user, the build machine's CA
// certificates, /tmp and the user's home. The image uses OCI media types
// throughout and is written as an OCI image layout (what skopeo, umoci and
// podman read, and what docker load takes once tarred) or as a tarball in
// the form docker load and podman load accept.
package image

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/match"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's fixed facts.
const (
	// UID and GID are the ids of the non-root user the app runs as (the
	// ids distroless calls nonroot).
	UID = 65532
	// GID is the user's group id.
	GID = 65532
	// User is the user's name in /etc/passwd.
	User = "nonroot"
	// CACertsPath is where the image holds the CA certificates (Go's
	// crypto/x509 looks there on Linux).
	CACertsPath = "/etc/ssl/certs/ca-certificates.crt"
	// HealthcheckPath is where the image holds the health-check program.
	HealthcheckPath = "/healthcheck"
	// RefNameAnnotation names an image in an OCI layout's index: the tag
	// that skopeo's oci:DIR:TAG and umoci's --image DIR:TAG look up.
	RefNameAnnotation = "org.opencontainers.image.ref.name"
)

// Spec describes an image to build.
type Spec struct {
	// Name is the app's name: the binary is /Name and the entrypoint. It
	// must be a lower-case file name ([a-z0-9][a-z0-9._-]*).
	Name string
	// Binary is the path of the app's static Linux binary.
	Binary string
	// Healthcheck is the path of the static health-check program; empty
	// leaves the image without a health check.
	Healthcheck string
	// CACerts are the PEM CA certificates installed at CACertsPath; empty
	// is refused (an app calling an HTTPS API needs them).
	CACerts []byte
	// Port is the port the app listens on: exposed and set as PORT.
	Port int
	// Arch is the GOARCH the binaries are built for (amd64, arm64, ...).
	Arch string
	// Env holds extra KEY=VALUE environment entries.
	Env []string
	// Labels are the image's labels (org.opencontainers.image.*).
	Labels map[string]string
	// Created is the image's creation time, also the files' modification
	// time; zero means the Unix epoch, so that equal inputs give an equal
	// image.
	Created time.Time
}

var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// check reports the first problem of the spec.
func (s *Spec) check() error {
	switch {
	case !namePattern.MatchString(s.Name):
		return fmt.Errorf("image: name %q: want a lower-case file name ([a-z0-9][a-z0-9._-]*, at most 63 characters)", s.Name)
	case s.Binary == "":
		return errors.New("image: no binary given")
	case len(bytes.TrimSpace(s.CACerts)) == 0:
		return errors.New("image: no CA certificates given")
	case s.Port < 1 || s.Port > 65535:
		return fmt.Errorf("image: port %d: want 1..65535", s.Port)
	case s.Arch == "":
		return errors.New("image: no architecture given")
	case s.Name == strings.TrimPrefix(HealthcheckPath, "/"):
		return fmt.Errorf("image: name %q is taken by the health-check program", s.Name)
	}
	for _, e := range s.Env {
		k, _, ok := strings.Cut(e, "=")
		if !ok || k == "" {
			return fmt.Errorf("image: environment entry %q: want KEY=VALUE", e)
		}
	}
	return nil
}

// Build assembles the image described by s.
func Build(s Spec) (v1.Image, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	created := s.Created
	if created.IsZero() {
		created = time.Unix(0, 0)
	}
	created = created.UTC().Truncate(time.Second)

	base, err := baseLayer(s.CACerts, created)
	if err != nil {
		return nil, err
	}
	files := []file{{path: s.Name, mode: 0o755, src: s.Binary}}
	if s.Healthcheck != "" {
		files = append(files, file{path: strings.TrimPrefix(HealthcheckPath, "/"), mode: 0o755, src: s.Healthcheck})
	}
	app, err := layerOf(files, created)
	if err != nil {
		return nil, err
	}

	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, MediaType: types.OCILayer, History: v1.History{Created: v1.Time{Time: created}, CreatedBy: "appkit image: /etc/passwd, /etc/group, CA certificates, /tmp", Comment: "base"}},
		mutate.Addendum{Layer: app, MediaType: types.OCILayer, History: v1.History{Created: v1.Time{Time: created}, CreatedBy: "appkit image: /" + s.Name + " and " + HealthcheckPath, Comment: "app"}},
	)
	if err != nil {
		return nil, fmt.Errorf("image: add the layers: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("image: read the config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = "linux", s.Arch, v1.Time{Time: created}
	cf.Config = Config(s)
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("image: set the config: %w", err)
	}
	return img, nil
}

// Config returns the run configuration of the image s describes:
// entrypoint /Name, the non-root user, the exposed port, PORT and the
// health check.
func Config(s Spec) v1.Config {
	port := strconv.Itoa(s.Port)
	env := append([]string{"PATH=/", "PORT=" + port, "SSL_CERT_FILE=" + CACertsPath, "HOME=/home/" + User}, s.Env...)
	c := v1.Config{
		Entrypoint:   []string{"/" + s.Name},
		User:         fmt.Sprintf("%d:%d", UID, GID),
		WorkingDir:   "/",
		Env:          env,
		ExposedPorts: map[string]struct{}{port + "/tcp": {}},
		Labels:       s.Labels,
		StopSignal:   "SIGTERM",
	}
	if s.Healthcheck != "" {
		c.Healthcheck = &v1.HealthConfig{
			Test:     []string{"CMD", HealthcheckPath},
			Interval: 30 * time.Second, Timeout: 5 * time.Second, StartPeriod: 5 * time.Second, Retries: 3,
		}
	}
	return c
}

// file is one entry of a layer: a directory (src empty and mode with
// ModeDir), a file read from src, or a file holding data.
type file struct {
	path     string
	mode     os.FileMode
	uid, gid int
	src      string
	data     []byte
}

// baseLayer holds the user, the CA certificates, /tmp and the home.
func baseLayer(caCerts []byte, created time.Time) (v1.Layer, error) {
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\n%s:x:%d:%d:%s:/home/%s:/sbin/nologin\n", User, UID, GID, User, User)
	group := fmt.Sprintf("root:x:0:\n%s:x:%d:\n", User, GID)
	return layerOf([]file{
		{path: "etc", mode: os.ModeDir | 0o755},
		{path: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{path: "etc/group", mode: 0o644, data: []byte(group)},
		{path: "etc/ssl", mode: os.ModeDir | 0o755},
		{path: "etc/ssl/certs", mode: os.ModeDir | 0o755},
		{path: strings.TrimPrefix(CACertsPath, "/"), mode: 0o644, data: caCerts},
		{path: "home", mode: os.ModeDir | 0o755},
		{path: "home/" + User, mode: os.ModeDir | 0o700, uid: UID, gid: GID},
		{path: "tmp", mode: os.ModeDir | os.ModeSticky | 0o777},
	}, created)
}

// layerOf writes files into an uncompressed tar and makes it a gzip OCI
// layer.
func layerOf(files []file, created time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: f.path, Mode: int64(f.mode.Perm()), Uid: f.uid, Gid: f.gid, ModTime: created, Format: tar.FormatPAX}
		if f.mode&os.ModeSticky != 0 {
			h.Mode |= 0o1000
		}
		data := f.data
		if f.mode.IsDir() {
			h.Typeflag, h.Name = tar.TypeDir, f.path+"/"
		} else {
			if f.src != "" {
				b, err := os.ReadFile(f.src)
				if err != nil {
					return nil, fmt.Errorf("image: read /%s from %s: %w", f.path, f.src, err)
				}
				data = b
			}
			h.Typeflag, h.Size = tar.TypeReg, int64(len(data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("image: tar /%s: %w", f.path, err)
		}
		if _, err := tw.Write(data); err != nil {
			return nil, fmt.Errorf("image: tar /%s: %w", f.path, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("image: close the tar: %w", err)
	}
	raw := buf.Bytes()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(raw)), nil },
		tarball.WithMediaType(types.OCILayer), tarball.WithCompressedCaching)
	if err != nil {
		return nil, fmt.Errorf("image: make the layer: %w", err)
	}
	return l, nil
}

// WriteLayout writes img into the OCI image layout at dir under tag (the
// ref.name annotation), creating the layout when dir holds none and
// replacing an image of the same tag when it does.
func WriteLayout(dir, tag string, img v1.Image) error {
	if tag == "" || strings.ContainsAny(tag, ":/ \t\n") {
		return fmt.Errorf("image: tag %q: want a non-empty tag without ':', '/' or spaces", tag)
	}
	ann := layout.WithAnnotations(map[string]string{RefNameAnnotation: tag})
	if _, err := os.Stat(filepath.Join(dir, "index.json")); err == nil {
		p, err := layout.FromPath(dir)
		if err != nil {
			return fmt.Errorf("image: open the layout %s: %w", dir, err)
		}
		if err := p.ReplaceImage(img, match.Annotation(RefNameAnnotation, tag), ann); err != nil {
			return fmt.Errorf("image: write into the layout %s: %w", dir, err)
		}
		return nil
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("image: create the layout %s: %w", dir, err)
	}
	if err := p.AppendImage(img, ann); err != nil {
		return fmt.Errorf("image: write into the layout %s: %w", dir, err)
	}
	return nil
}

// WriteTarball writes img to path as a tarball that docker load and podman
// load accept, named ref (REPOSITORY:TAG).
func WriteTarball(path, ref string, img v1.Image) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("image: reference %q: %w", ref, err)
	}
	if err := tarball.WriteToFile(path, tag, img); err != nil {
		return fmt.Errorf("image: write %s: %w", path, err)
	}
	return nil
}

// Layers lists the files of each of img's layers as "MODE UID:GID PATH"
// lines in order, for checks.
func Layers(img v1.Image) ([][]string, error) {
	ls, err := img.Layers()
	if err != nil {
		return nil, fmt.Errorf("image: layers: %w", err)
	}
	var out [][]string
	for i, l := range ls {
		rc, err := l.Uncompressed()
		if err != nil {
			return nil, fmt.Errorf("image: layer %d: %w", i, err)
		}
		var lines []string
		tr := tar.NewReader(rc)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				rc.Close()
				return nil, fmt.Errorf("image: layer %d: %w", i, err)
			}
			lines = append(lines, fmt.Sprintf("%v %d:%d /%s", h.FileInfo().Mode(), h.Uid, h.Gid, strings.TrimSuffix(h.Name, "/")))
		}
		rc.Close()
		out = append(out, slices.Clip(lines))
	}
	return out, nil
}
