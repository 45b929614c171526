package store

import (
	"strconv"
	"testing"
)

func TestParsePayload(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		id   string
		v    int64
		okay bool
	}{
		{"0b6a0f1e-6a43-4c1e-9d8e-2f3b1a2c4d5e 7", "0b6a0f1e-6a43-4c1e-9d8e-2f3b1a2c4d5e", 7, true},
		{notifyPayload(&Catalog{SchemaID: "s", Version: 12}), "s", 12, true},
		{"", "", 0, false},
		{"s", "", 0, false},
		{" 7", "", 0, false},
		{"s 0", "", 0, false},
		{"s -3", "", 0, false},
		{"s 7x", "", 0, false},
		{"s 99999999999999999999", "", 0, false},
	} {
		id, v, ok := parsePayload(tc.in)
		if id != tc.id || v != tc.v || ok != tc.okay {
			t.Errorf("parsePayload(%q) = %q, %d, %v; want %q, %d, %v", tc.in, id, v, ok, tc.id, tc.v, tc.okay)
		}
	}
}

// FuzzParsePayload: any notification payload (another program may notify on
// the channel) is read or refused, never a panic, and what is read
// round-trips.
func FuzzParsePayload(f *testing.F) {
	f.Add("s 1")
	f.Add("x")
	f.Add("a b c")
	f.Fuzz(func(t *testing.T, p string) {
		id, v, ok := parsePayload(p)
		if !ok {
			return
		}
		if v < 1 || id == "" {
			t.Fatalf("parsePayload(%q) = %q, %d", p, id, v)
		}
		if got := id + " " + strconv.FormatInt(v, 10); got != p {
			if _, v2, ok2 := parsePayload(got); !ok2 || v2 != v {
				t.Fatalf("round trip of %q: %q", p, got)
			}
		}
	})
}

// A catalog version is installed once: a second copy of the same version
// (the listener catching up after the writer installed it) leaves the
// first in place, so that its types stay the transactions' types; a newer
// version replaces it and an older one does not.
func TestInstallKeepsOneSnapshotPerVersion(t *testing.T) {
	t.Parallel()
	s := &Store{}
	first := &Catalog{Version: 5}
	if got := s.install(first); got != first {
		t.Fatal("the first catalog was not installed")
	}
	if got := s.install(&Catalog{Version: 5}); got != first {
		t.Error("a second copy of version 5 replaced the first")
	}
	if got := s.install(&Catalog{Version: 4}); got != first {
		t.Error("version 4 replaced version 5")
	}
	newer := &Catalog{Version: 6}
	if got := s.install(newer); got != newer {
		t.Error("version 6 did not replace version 5")
	}
}
