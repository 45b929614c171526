// Package imagetest reads back, in tests, the OCI layouts and tarballs
// that package image writes (its own tests and appkit image's).
package imagetest

import (
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Index opens the OCI layout at dir and reads its index.
func Index(t testing.TB, dir string) (layout.Path, *v1.IndexManifest) {
	t.Helper()
	p := must(layout.FromPath(dir))(t)
	ii := must(p.ImageIndex())(t)
	return p, must(ii.IndexManifest())(t)
}

// Image reads the image of digest d from the layout p, and its config.
func Image(t testing.TB, p layout.Path, d v1.Hash) (v1.Image, *v1.ConfigFile) {
	t.Helper()
	img := must(p.Image(d))(t)
	return img, must(img.ConfigFile())(t)
}

// CheckTarball fails the test unless the tarball at path holds img (the
// same config).
func CheckTarball(t testing.TB, path string, img v1.Image) {
	t.Helper()
	back := must(tarball.ImageFromPath(path, nil))(t)
	want, _ := img.ConfigName()
	if got, _ := back.ConfigName(); got != want {
		t.Errorf("the tarball's config %s, want %s", got, want)
	}
}

// must is v for a test, which it ends when err is set: must(f())(t), the
// call's results passed whole.
func must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}
