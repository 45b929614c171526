package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// --trusted-proxies (or APPKIT_TRUSTED_PROXIES) is read as a list of
// addresses and prefixes; anything else is a usage error.
func TestHostTrustedProxiesFlag(t *testing.T) {
	o, err := parseHostFlags([]string{"--trusted-proxies", "10.0.0.0/8, 127.0.0.1"}, io.Discard)
	if err != nil || fmt.Sprint(o.trustedProxies) != "[10.0.0.0/8 127.0.0.1/32]" {
		t.Fatalf("--trusted-proxies: %v %v", o, err)
	}
	t.Setenv("APPKIT_TRUSTED_PROXIES", "::1")
	if o, err := parseHostFlags(nil, io.Discard); err != nil || len(o.trustedProxies) != 1 || o.trustedProxies[0] != netip.MustParsePrefix("::1/128") {
		t.Fatalf("APPKIT_TRUSTED_PROXIES: %v %v", o, err)
	}
	t.Setenv("APPKIT_TRUSTED_PROXIES", "")
	if o, err := parseHostFlags(nil, io.Discard); err != nil || len(o.trustedProxies) != 0 {
		t.Fatalf("the default trusts a proxy: %v %v", o, err)
	}
	if _, err := parseHostFlags([]string{"--trusted-proxies", "proxy.example"}, io.Discard); err == nil || !strings.Contains(err.Error(), "--trusted-proxies") {
		t.Fatalf("a name: %v", err)
	}
}

// "appkit host --trusted-proxies 127.0.0.1" counts sign-in attempts
// against the address the proxy forwarded: one client's burst does not
// refuse another's.
func TestHostTrustedProxiesCountForwardedClients(t *testing.T) {
	t.Parallel()
	stopped := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ctx := context.WithValue(context.Background(), hostClockKey{}, func() time.Time { return stopped })
	base, stop, _ := startHostCtx(t, ctx, "--addr", "127.0.0.1:0", "--store", "sqlite::memory:", "--trusted-proxies", "127.0.0.1")
	defer stop()
	signIn := func(client string, i int) int {
		req, _ := http.NewRequest("POST", base+"/api/login", strings.NewReader(fmt.Sprintf(`{"email":"x%d@example.com","password":"guess"}`, i)))
		req.Header.Set("X-Forwarded-For", client)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range 10 {
		if code := signIn("203.0.113.1", i); code != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d", i+1, code)
		}
	}
	if code := signIn("203.0.113.1", 10); code != http.StatusTooManyRequests {
		t.Fatalf("the client's 11th attempt: %d", code)
	}
	if code := signIn("203.0.113.2", 11); code != http.StatusUnauthorized {
		t.Fatalf("another client behind the proxy: %d", code)
	}
}
