package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/image"
	"github.com/appkitgo/appkit/internal/image/imagetest"
)

// appkit image builds a stand-in app and the health check, and writes an
// OCI layout and a tarball whose config runs the app as the non-root user.
func TestImage_buildsLayoutAndTarball(t *testing.T) {
	dir := t.TempDir()
	certs := filepath.Join(dir, "certs.pem")
	if err := os.WriteFile(certs, []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	out, tarPath := filepath.Join(dir, "app.oci"), filepath.Join(dir, "app.tar")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"image", "./testdata/imageapp", "--out", out, "--tag", "v1", "--tar", tarPath, "--port", "9000", "--ca-certs", certs}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "as v1") || !strings.Contains(stdout.String(), "imageapp:v1 written to") {
		t.Errorf("stdout: %s", stdout.String())
	}
	p, im := imagetest.Index(t, out)
	if len(im.Manifests) != 1 || im.Manifests[0].Annotations[image.RefNameAnnotation] != "v1" {
		t.Fatalf("index %+v", im.Manifests)
	}
	img, cf := imagetest.Image(t, p, im.Manifests[0].Digest)
	c := cf.Config
	if !slices.Equal(c.Entrypoint, []string{"/imageapp"}) || c.User != "65532:65532" || !slices.Contains(c.Env, "PORT=9000") {
		t.Errorf("config %+v", c)
	}
	if _, ok := c.ExposedPorts["9000/tcp"]; !ok {
		t.Errorf("exposed %v", c.ExposedPorts)
	}
	if c.Healthcheck == nil || c.Healthcheck.Test[1] != "/healthcheck" {
		t.Errorf("health check %+v", c.Healthcheck)
	}
	if c.Labels["org.opencontainers.image.source"] != "github.com/appkitgo/appkit/cmd/appkit/testdata/imageapp" || c.Labels["org.opencontainers.image.created"] != "2023-11-14T22:13:20Z" {
		t.Errorf("labels %v", c.Labels)
	}
	layers, err := image.Layers(img)
	if err != nil {
		t.Fatal(err)
	}
	if got := layers[len(layers)-1]; !slices.Equal(got, []string{"-rwxr-xr-x 0:0 /imageapp", "-rwxr-xr-x 0:0 /healthcheck"}) {
		t.Errorf("app layer %q", got)
	}
	imagetest.CheckTarball(t, tarPath, img)
}

func TestImage_refused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"image"}, 2, "want one PACKAGE_DIR\nrun 'appkit image -h' for usage\n"},
		{[]string{"image", "./nonexistent"}, 2, "is not a directory"},
		{[]string{"image", "./testdata/imageapp", "extra"}, 2, "want one PACKAGE_DIR"},
		{[]string{"image", "./testdata/imageapp", "--ca-certs", "/nonexistent.pem"}, 1, "CA certificates"},
		{[]string{"image", "../../internal/image", "--ca-certs", "image_test.go", "--out", os.DevNull}, 1, "not a command"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), tc.args, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), tc.code, tc.want)
		}
	}
}
