package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/appkitgo/appkit/internal/image"
)

func init() {
	register(command{
		name:    "image",
		summary: "build an app's container image without a daemon (OCI layout)",
		run:     runImage,
	})
}

const imageUsage = `Usage: appkit image PACKAGE_DIR [--out DIR] [--tag T] [--tar FILE] [--port N] [--name NAME] [--arch ARCH]

Builds the container image of the app whose main package is in PACKAGE_DIR
(for example ./examples/tracker), with no container daemon and no base image
from a registry: the app's static binary (CGO_ENABLED=0 go build) and a small
health-check program as one layer, on a base layer holding /etc/passwd with
the non-root user nonroot (65532:65532), this machine's CA certificates and
/tmp. The config sets the entrypoint /NAME, the user, the exposed port, PORT,
the labels and a HEALTHCHECK that runs /healthcheck (GET /healthz on 127.0.0.1:PORT).

The image is written as an OCI image layout in DIR under the tag T (skopeo:
oci:DIR:T; umoci: --image DIR:T; podman load and, tarred, docker load read it)
and, with --tar, also as a tarball named NAME:T that docker load and podman
load accept. SOURCE_DATE_EPOCH, when set, fixes the creation time so that
equal sources give an equal image.

Examples:
  appkit image ./examples/tracker --out tracker.oci
  appkit image ./examples/tracker --tar tracker.tar && docker load -i tracker.tar

Flags:
`

// runImage implements "appkit image".
func runImage(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("image", imageUsage, []envVar{envSourceDateEpoch}, stderr)
	out := fs.String("out", "", "the OCI layout directory (default NAME.oci)")
	tag := fs.String("tag", "latest", "the image's tag")
	tarPath := fs.String("tar", "", "also write a docker/podman load tarball to this file")
	port := fs.Int("port", 8080, "the port the app listens on (exposed, and set as PORT)")
	appName := fs.String("name", "", "the binary's name in the image (default: the package directory's name)")
	arch := fs.String("arch", runtime.GOARCH, "the GOARCH to build for")
	caCerts := fs.String("ca-certs", "/etc/ssl/certs/ca-certificates.crt", "the PEM CA certificates to install")
	pkg, err := fs.parseOne(args, "PACKAGE_DIR")
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(pkg)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return usageErrorf("%s is not a directory", pkg)
	}
	if *appName == "" {
		*appName = strings.ToLower(filepath.Base(dir))
	}
	if *out == "" {
		*out = *appName + ".oci"
	}
	certs, err := os.ReadFile(*caCerts)
	if err != nil {
		return fmt.Errorf("CA certificates: %w (install Debian's ca-certificates or pass --ca-certs FILE)", err)
	}
	created := time.Now()
	if v := os.Getenv(envSourceDateEpoch.name); v != "" {
		sec, err := strconv.ParseInt(v, 10, 64)
		if err != nil || sec < 0 {
			return usageErrorf("SOURCE_DATE_EPOCH: want seconds since 1970, got %q", v)
		}
		created = time.Unix(sec, 0)
	}

	tmp, err := os.MkdirTemp("", "appkit-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin, hc := filepath.Join(tmp, "app"), filepath.Join(tmp, "healthcheck")
	importPath, err := goBuild(ctx, dir, *arch, bin, ".", stderr)
	if err != nil {
		return fmt.Errorf("build %s: %w", pkg, err)
	}
	if _, err := goBuild(ctx, dir, *arch, hc, healthcheckPkg, stderr); err != nil {
		return fmt.Errorf("build the health check (%s, from the app's module: does it require github.com/appkitgo/appkit?): %w", healthcheckPkg, err)
	}
	img, err := image.Build(image.Spec{
		Name: *appName, Binary: bin, Healthcheck: hc, CACerts: certs, Port: *port, Arch: *arch, Created: created,
		Labels: map[string]string{
			"org.opencontainers.image.title":   *appName,
			"org.opencontainers.image.created": created.UTC().Format(time.RFC3339),
			"org.opencontainers.image.source":  importPath,
			"org.opencontainers.image.description": "the appkit app " + importPath +
				" (built by appkit image; health check: " + image.HealthcheckPath + ")",
		},
	})
	if err != nil {
		return err
	}
	if err := image.WriteLayout(*out, *tag, img); err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "appkit image: %s (%s) written to the OCI layout %s as %s\n", importPath, digest, *out, *tag)
	if *tarPath != "" {
		ref := *appName + ":" + *tag
		if err := image.WriteTarball(*tarPath, ref, img); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "appkit image: %s written to %s (docker load -i %s)\n", ref, *tarPath, *tarPath)
	}
	return nil
}

// envSourceDateEpoch fixes the image's creation time.
var envSourceDateEpoch = envVar{"SOURCE_DATE_EPOCH", "seconds since 1970: the image's creation time (equal sources give an equal image)"}

// healthcheckPkg is the health-check program every image carries.
const healthcheckPkg = "github.com/appkitgo/appkit/internal/image/healthcheck"

// goBuild builds the main package pkg, as seen from dir, into a static
// Linux binary at out, and returns pkg's import path.
func goBuild(ctx context.Context, dir, arch, out, pkg string, stderr io.Writer) (string, error) {
	list := exec.CommandContext(ctx, "go", "list", "-f", "{{.Name}} {{.ImportPath}}", pkg)
	list.Dir, list.Stderr = dir, stderr
	list.Env = buildEnv(arch)
	b, err := list.Output()
	if err != nil {
		return "", fmt.Errorf("go list: %w", err)
	}
	name, importPath, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
	if name != "main" {
		return "", fmt.Errorf("%s is package %s, not a command (package main)", importPath, name)
	}
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
	build.Dir, build.Stdout, build.Stderr = dir, stderr, stderr
	build.Env = buildEnv(arch)
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("go build: %w", err)
	}
	return importPath, nil
}

// buildEnv is the environment of a static Linux build for arch.
func buildEnv(arch string) []string {
	return append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
}
