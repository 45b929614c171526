package host

import (
	"net/netip"
	"testing"
)

// The client behind trusted proxies is the first address right of them in
// X-Forwarded-For; without a trusted peer nothing forwarded is read.
func TestForwardedClient(t *testing.T) {
	t.Parallel()
	trusted, err := ParseTrustedProxies("10.0.0.0/8, 127.0.0.1 ,::1, fd00::/8")
	if err != nil || len(trusted) != 4 {
		t.Fatalf("%v %v", trusted, err)
	}
	for _, tc := range []struct {
		peer   string
		values []string
		want   string
	}{
		{"203.0.113.1", []string{"198.51.100.1"}, "203.0.113.1"},                // an untrusted peer: the header is not read
		{"127.0.0.1", nil, "127.0.0.1"},                                         // a trusted peer forwarding nothing
		{"127.0.0.1", []string{"198.51.100.1"}, "198.51.100.1"},                 // one proxy
		{"127.0.0.1", []string{"192.0.2.9, 198.51.100.1"}, "198.51.100.1"},      // the client's own entry is not believed
		{"127.0.0.1", []string{"198.51.100.1, 10.1.2.3"}, "198.51.100.1"},       // two proxies
		{"127.0.0.1", []string{"198.51.100.1", "10.1.2.3"}, "198.51.100.1"},     // two headers
		{"127.0.0.1", []string{"10.9.9.9, 10.1.2.3"}, "10.9.9.9"},               // every hop trusted: the leftmost
		{"127.0.0.1", []string{"198.51.100.1, junk, 10.1.2.3"}, "10.1.2.3"},     // a malformed hop ends at the proxy that added it
		{"127.0.0.1", []string{"[2001:db8::1]:4711"}, "2001:db8::1"},            // brackets and a port
		{"127.0.0.1", []string{"198.51.100.1:8080"}, "198.51.100.1"},            // a port
		{"127.0.0.1", []string{"::ffff:198.51.100.1"}, "198.51.100.1"},          // an IPv4-mapped address
		{"::1", []string{"2001:db8::7"}, "2001:db8::7"},                         // an IPv6 proxy
		{"::ffff:127.0.0.1", []string{"198.51.100.1"}, "198.51.100.1"},          // a mapped peer
		{"127.0.0.1", []string{"fd00::5, 2001:db8::1, fd00::6"}, "2001:db8::1"}, // ULA proxies
		{"127.0.0.1", []string{"2001:db8::1, 198.51.100.3, fd00::6"}, "198.51.100.3"},
	} {
		peer := netip.MustParseAddr(tc.peer).Unmap()
		if got := forwardedClient(peer, tc.values, trusted).String(); got != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: %s, want %s", tc.peer, tc.values, got, tc.want)
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "example.com", "10.0.0.1/8/2", "::g"} {
		if _, err := ParseTrustedProxies(bad); err == nil {
			t.Errorf("ParseTrustedProxies(%q) accepted", bad)
		}
	}
	if p, err := ParseTrustedProxies(" "); err != nil || len(p) != 0 {
		t.Errorf("an empty list: %v %v", p, err)
	}
}

// Limits count IPv4 clients by address and IPv6 clients by their /64.
func TestLimitKey(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"198.51.100.7":                     "198.51.100.7",
		"::ffff:198.51.100.7":              "198.51.100.7",
		"2001:db8:1:2::1":                  "2001:db8:1:2::/64",
		"2001:db8:1:2:ffff:ffff:ffff:ffff": "2001:db8:1:2::/64",
		"2001:db8:1:3::1":                  "2001:db8:1:3::/64",
		"fe80::1%eth0":                     "fe80::/64",
		"not an address":                   "not an address",
	} {
		if got := limitKey(addr); got != want {
			t.Errorf("limitKey(%q) = %q, want %q", addr, got, want)
		}
	}
}
