package apps

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
)

// KeySize is the size of the key that seals account secrets (AES-256).
const KeySize = 32

// ErrNoKey reports that no key was configured.
var ErrNoKey = errors.New("no secret key: set APPKIT_SECRET_KEY (32 bytes, base64 or hex) or APPKIT_SECRET_KEY_FILE")

// ParseKey reads a key written as base64 (standard or URL alphabet, padded
// or not) or hex; it must decode to KeySize bytes.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if len(s) == 2*KeySize {
		if b, err := hex.DecodeString(s); err == nil {
			return b, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == KeySize {
			return b, nil
		}
	}
	return nil, fmt.Errorf("the secret key must be %d bytes written in base64 or hex (openssl rand -base64 32 makes one)", KeySize)
}

// LoadKey returns the key of APPKIT_SECRET_KEY, else of the file named by
// APPKIT_SECRET_KEY_FILE, else of file (when not empty), created with a
// fresh key (mode 0600) when it does not exist. It fails with ErrNoKey when
// nothing is configured.
func LoadKey(file string) ([]byte, error) {
	if v := os.Getenv("APPKIT_SECRET_KEY"); v != "" {
		k, err := ParseKey(v)
		if err != nil {
			return nil, fmt.Errorf("APPKIT_SECRET_KEY: %w", err)
		}
		return k, nil
	}
	if f := os.Getenv("APPKIT_SECRET_KEY_FILE"); f != "" {
		return readKeyFile(f, false)
	}
	if file == "" {
		return nil, ErrNoKey
	}
	return readKeyFile(file, true)
}

func readKeyFile(path string, create bool) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && create {
		k := make([]byte, KeySize)
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
	k, err := ParseKey(string(b))
	if err != nil {
		return nil, fmt.Errorf("secret key file %s: %w", path, err)
	}
	return k, nil
}

// sealer encrypts and decrypts account secrets with AES-GCM.
type sealer struct{ aead cipher.AEAD }

func newSealer(key []byte) (*sealer, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("apps: the secret key has %d bytes, want %d", len(key), KeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("apps: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("apps: %w", err)
	}
	return &sealer{aead}, nil
}

// seal encrypts plain bound to ad (nonce first, base64).
func (s *sealer) seal(plain []byte, ad string) string {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	rand.Read(nonce)
	return base64.StdEncoding.EncodeToString(s.aead.Seal(nonce, nonce, plain, []byte(ad)))
}

// errSealed hides why a sealed value could not be opened (a wrong key, a
// tampered value).
var errSealed = errors.New("cannot decrypt the stored secrets: a different APPKIT_SECRET_KEY, or a damaged value")

// open decrypts what seal wrote.
func (s *sealer) open(sealed, ad string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(sealed)
	if err != nil || len(b) < s.aead.NonceSize() {
		return nil, errSealed
	}
	n := s.aead.NonceSize()
	plain, err := s.aead.Open(nil, b[:n], b[n:], []byte(ad))
	if err != nil {
		return nil, errSealed
	}
	return plain, nil
}
