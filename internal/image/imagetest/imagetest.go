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
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	ii, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	im, err := ii.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	return p, im
}

// Image reads the image of digest d from the layout p, and its config.
func Image(t testing.TB, p layout.Path, d v1.Hash) (v1.Image, *v1.ConfigFile) {
	t.Helper()
	img, err := p.Image(d)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	return img, cf
}

// CheckTarball fails the test unless the tarball at path holds img (the
// same config).
func CheckTarball(t testing.TB, path string, img v1.Image) {
	t.Helper()
	back, err := tarball.ImageFromPath(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := img.ConfigName()
	if got, _ := back.ConfigName(); got != want {
		t.Errorf("the tarball's config %s, want %s", got, want)
	}
}
