package apps

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the size of the key that seals account secrets (AES-256).
const KeySize = 32

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
