package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"os"

	"github.com/appkitgo/appkit/internal/apps"
)

// Environment variables of the secret key that seals account secrets.
const (
	envSecretKey     = "APPKIT_SECRET_KEY"
	envSecretKeyFile = "APPKIT_SECRET_KEY_FILE"
)

// errNoKey reports that no secret key was configured.
var errNoKey = errors.New("no secret key: set " + envSecretKey + " (32 bytes, base64 or hex) or " + envSecretKeyFile)

// loadSecretKey returns the key of APPKIT_SECRET_KEY, else of the file
// named by APPKIT_SECRET_KEY_FILE, else of file (when not empty), created
// with a fresh key (mode 0600) when it does not exist. It fails with
// errNoKey when nothing is configured. getenv reads the environment.
func loadSecretKey(getenv func(string) string, file string) ([]byte, error) {
	if v := getenv(envSecretKey); v != "" {
		k, err := apps.ParseKey(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", envSecretKey, err)
		}
		return k, nil
	}
	if f := getenv(envSecretKeyFile); f != "" {
		return readKeyFile(f, false)
	}
	if file == "" {
		return nil, errNoKey
	}
	return readKeyFile(file, true)
}

// readKeyFile reads a key file, creating it with a fresh key when create
// is set and it does not exist.
func readKeyFile(path string, create bool) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && create {
		k := make([]byte, apps.KeySize)
		rand.Read(k)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, fmt.Errorf("create the secret key file: %w", err)
		}
		_, werr := f.WriteString(base64.StdEncoding.EncodeToString(k) + "\n")
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return nil, fmt.Errorf("write the secret key file: %w", werr)
		}
		return k, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the secret key file: %w", err)
	}
	k, err := apps.ParseKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("secret key file %s: %w", path, err)
	}
	return k, nil
}
