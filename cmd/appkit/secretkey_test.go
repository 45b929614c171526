package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/apps"
)

func TestLoadSecretKey(t *testing.T) {
	t.Parallel()
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if _, err := loadSecretKey(getenv, ""); !errors.Is(err, errNoKey) {
		t.Errorf("no key: %v", err)
	}
	file := filepath.Join(t.TempDir(), "store.key")
	k1, err := loadSecretKey(getenv, file)
	if err != nil || len(k1) != apps.KeySize {
		t.Fatalf("created key: %x %v", k1, err)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode: %v %v", fi.Mode(), err)
	}
	k2, err := loadSecretKey(getenv, file)
	if err != nil || !bytes.Equal(k1, k2) {
		t.Errorf("the key file was not read back: %v", err)
	}
	other := filepath.Join(t.TempDir(), "other.key")
	if err := os.WriteFile(other, []byte(hex.EncodeToString(bytes.Repeat([]byte{2}, apps.KeySize))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env[envSecretKeyFile] = other
	if k, err := loadSecretKey(getenv, file); err != nil || k[0] != 2 {
		t.Errorf("the key file variable does not win over the default file: %x %v", k, err)
	}
	env[envSecretKeyFile] = filepath.Join(t.TempDir(), "missing.key")
	if _, err := loadSecretKey(getenv, file); err == nil {
		t.Error("a missing APPKIT_SECRET_KEY_FILE was created or ignored")
	}
	env[envSecretKey] = hex.EncodeToString(bytes.Repeat([]byte{1}, apps.KeySize))
	if k, err := loadSecretKey(getenv, file); err != nil || k[0] != 1 {
		t.Errorf("the environment does not win: %x %v", k, err)
	}
	env[envSecretKey] = "nope"
	if _, err := loadSecretKey(getenv, file); err == nil || strings.Contains(err.Error(), "nope") {
		t.Errorf("a bad key: %v", err)
	}
}
