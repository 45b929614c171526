package apps

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
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

// sealer encrypts and decrypts account secrets with AES-GCM, and keys
// the ids of webhook events with HMAC-SHA-256.
type sealer struct {
	aead cipher.AEAD
	// idKey keys event ids: derived from the key, never the key itself.
	idKey []byte
}

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
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("appkit apps: webhook event ids"))
	return &sealer{aead: aead, idKey: mac.Sum(nil)}, nil
}

// eventID is the id of a webhook event: the HMAC-SHA-256, keyed with a key
// derived from the service's, of the sync, the webhook and the body
// received, in hex. Only the host can tell from it which body it stands
// for; the same event received again has the same id.
func (s *sealer) eventID(syncID, webhookID string, body []byte) string {
	mac := hmac.New(sha256.New, s.idKey)
	writeEventParts(mac, syncID, webhookID, body)
	return hex.EncodeToString(mac.Sum(nil))
}

// legacyEventID is the id an event had before ids were keyed: the plain
// SHA-256 of the same parts. Events received before are still matched by
// it while they are kept (ReplayWindow after they were handled), so that
// one received again after the upgrade is not applied twice.
func legacyEventID(syncID, webhookID string, body []byte) string {
	h := sha256.New()
	writeEventParts(h, syncID, webhookID, body)
	return hex.EncodeToString(h.Sum(nil))
}

// writeEventParts writes what an event's id is taken of.
func writeEventParts(w io.Writer, syncID, webhookID string, body []byte) {
	io.WriteString(w, syncID+"\x00"+webhookID+"\x00")
	w.Write(body)
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
