package apps

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
)

func TestSealer(t *testing.T) {
	t.Parallel()
	key := bytes.Repeat([]byte{7}, KeySize)
	s, err := newSealer(key)
	if err != nil {
		t.Fatal(err)
	}
	a := s.seal([]byte(`{"token":"s3cret"}`), "account:1")
	b := s.seal([]byte(`{"token":"s3cret"}`), "account:1")
	if a == b || strings.Contains(a, "s3cret") {
		t.Errorf("sealing is deterministic or readable: %q %q", a, b)
	}
	if got, err := s.open(a, "account:1"); err != nil || string(got) != `{"token":"s3cret"}` {
		t.Errorf("open: %q %v", got, err)
	}
	// Bound to its account, its key, its bytes.
	if _, err := s.open(a, "account:2"); err == nil {
		t.Error("opened under another account id")
	}
	other, _ := newSealer(bytes.Repeat([]byte{8}, KeySize))
	if _, err := other.open(a, "account:1"); err == nil {
		t.Error("opened with another key")
	}
	raw, _ := base64.StdEncoding.DecodeString(a)
	raw[len(raw)-1] ^= 1
	if _, err := s.open(base64.StdEncoding.EncodeToString(raw), "account:1"); err == nil {
		t.Error("opened a tampered value")
	}
	if _, err := newSealer([]byte("short")); err == nil {
		t.Error("a short key was accepted")
	}
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	k := bytes.Repeat([]byte{0xab}, KeySize)
	for _, s := range []string{hex.EncodeToString(k), base64.StdEncoding.EncodeToString(k), base64.RawURLEncoding.EncodeToString(k), " " + base64.StdEncoding.EncodeToString(k) + "\n"} {
		got, err := ParseKey(s)
		if err != nil || !bytes.Equal(got, k) {
			t.Errorf("ParseKey(%q) = %x, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "short", base64.StdEncoding.EncodeToString(k[:16]), strings.Repeat("z", 64)} {
		if _, err := ParseKey(s); err == nil {
			t.Errorf("ParseKey(%q) accepted", s)
		}
	}
}

func TestMasker(t *testing.T) {
	t.Parallel()
	desc := &protocol.Descriptor{Authentication: []protocol.Authentication{{ID: "basic", Fields: []protocol.Field{{ID: "pw", Type: "password"}, {ID: "user", Type: "text"}}}}}
	m := newMasker(map[string]any{"pw": "hunter22", "user": "alice-user", "api_key": "k-123/+x", "auth": "basic", "tiny": "ab"}, desc)
	got := m.mask(`pw=hunter22 user=alice-user key=k-123%2F%2Bx`)
	if got != `pw=*** user=alice-user key=***` {
		t.Errorf("mask: %q", got)
	}
	// JSON bodies: secret-named keys are masked, and what they held is
	// masked from then on.
	body := m.maskJSON([]byte(`{"access_token":"new-token-1","name":"x","nested":[{"refresh_token":"r-222"}],"auth":"basic"}`))
	if strings.Contains(body, "new-token-1") || strings.Contains(body, "r-222") || !strings.Contains(body, `"auth":"basic"`) {
		t.Errorf("maskJSON: %s", body)
	}
	if got := m.mask("later: new-token-1"); got != "later: ***" {
		t.Errorf("a token seen in an answer is not masked later: %q", got)
	}
}

func TestParseEvery(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]time.Duration{"": 0, "15m": 15 * time.Minute, "1s": time.Second, "2h30m": 150 * time.Minute} {
		if d, err := ParseEvery(s); err != nil || d != want {
			t.Errorf("ParseEvery(%q) = %v, %v", s, d, err)
		}
	}
	for _, s := range []string{"1ms", "-1m", "x", "10000h", "15"} {
		if _, err := ParseEvery(s); err == nil {
			t.Errorf("ParseEvery(%q) accepted", s)
		}
	}
}

func TestFormatEvery(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{2 * time.Hour: "2h", 90 * time.Minute: "1h30m", 15 * time.Minute: "15m", 90 * time.Second: "1m30s", time.Second: "1s", 2*time.Hour + time.Second: "2h0m1s"} {
		got := FormatEvery(d)
		if got != want {
			t.Errorf("FormatEvery(%v) = %q, want %q", d, got, want)
		}
		if back, err := ParseEvery(got); err != nil || back != d {
			t.Errorf("ParseEvery(%q) = %v, %v", got, back, err)
		}
	}
}

func TestNormalizeURL(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"http://a:8080/": "http://a:8080", "https://a/x/": "https://a/x", " http://a ": "http://a"} {
		if got, err := NormalizeURL(in); err != nil || got != want {
			t.Errorf("NormalizeURL(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "ftp://a", "http://", "http://u:p@a", "http://a/?q=1", "http://a/#f", "a:b"} {
		if _, err := NormalizeURL(in); err == nil {
			t.Errorf("NormalizeURL(%q) accepted", in)
		}
	}
}

// The parsers of what users send never panic and accept only what they
// document.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{"15m", "", "http://a:1/x", hex.EncodeToString(make([]byte, 32)), "{{Name}}", "x{{ a }}y{{b}}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := ParseEvery(s); err == nil && d != 0 && (d < MinEvery || d > MaxEvery) {
			t.Errorf("ParseEvery(%q) = %v out of bounds", s, d)
		}
		if k, err := ParseKey(s); err == nil && len(k) != KeySize {
			t.Errorf("ParseKey(%q): %d bytes", s, len(k))
		}
		if u, err := NormalizeURL(s); err == nil && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
			t.Errorf("NormalizeURL(%q) = %q", s, u)
		}
		for _, m := range templateRef.FindAllStringSubmatch(s, -1) {
			if strings.ContainsAny(m[1], "{}") || len(m[1]) > 200 {
				t.Errorf("template reference %q", m[1])
			}
		}
		m := newMasker(map[string]any{"token": s}, nil)
		if len(s) >= 4 && strings.Contains(m.mask("a "+s+" b"), s) {
			t.Errorf("a secret %q is not masked", s)
		}
	})
}
