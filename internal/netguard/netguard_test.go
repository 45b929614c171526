package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]Class{
		"8.8.8.8": Public, "1.1.1.1": Public, "93.184.216.34": Public, "2606:4700:4700::1111": Public, "2a00:1450::1": Public,
		"192.31.196.1": Public, "2002:808:808::1": Public, "64:ff9b::808:808": Public, "::ffff:8.8.8.8": Public,

		"127.0.0.1": Loopback, "127.255.0.9": Loopback, "::1": Loopback, "::ffff:127.0.0.1": Loopback,
		"2002:7f00:1::1": Loopback, "::ffff:0:7f00:1": Loopback, "64:ff9b::7f00:1": Loopback,

		"10.1.2.3": Private, "172.16.0.1": Private, "172.31.255.255": Private, "192.168.1.1": Private, "100.64.0.1": Private,
		"fc00::1": Private, "fd12:3456::1": Private, "fec0::1": Private, "feff::1": Private, "64:ff9b:1::a00:1": Private,
		"2002:a00:1::1": Private, "::ffff:10.0.0.1": Private,

		"169.254.169.254": LinkLocal, "fe80::1": LinkLocal, "fe80::1%eth0": LinkLocal, "::ffff:169.254.1.1": LinkLocal,

		"0.0.0.0": Reserved, "0.1.2.3": Reserved, "::": Reserved, "::7f00:1": Reserved, "::8.8.8.8": Reserved,
		"224.0.0.1": Reserved, "239.1.1.1": Reserved, "255.255.255.255": Reserved, "240.0.0.1": Reserved,
		"192.0.2.1": Reserved, "198.51.100.1": Reserved, "203.0.113.9": Reserved, "198.18.0.1": Reserved, "192.0.0.8": Reserved,
		"192.88.99.1": Reserved, "2001:db8::1": Reserved, "2001::1": Reserved, "2001:0:4136:e378:8000:63bf:3fff:fdd2": Reserved,
		"100::1": Reserved, "ff02::1": Reserved, "ff0e::1": Reserved, "3fff::1": Reserved, "5f00::1": Reserved, "4000::1": Reserved,
		"2002:0:1::1": Reserved, "::ffff:0:0:1": Reserved,
	} {
		if got := Classify(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Classify(%s) = %v, want %v", addr, got, want)
		}
	}
	if got := Classify(netip.Addr{}); got != Reserved {
		t.Errorf("the zero address: %v", got)
	}
}

func TestPolicies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		policy  Policy
		allowed []string
		refused []string
	}{
		{PublicOnly, []string{"8.8.8.8", "2606:4700:4700::1111"}, []string{"127.0.0.1", "10.0.0.1", "169.254.169.254", "::7f00:1", "2002:7f00:1::1", "64:ff9b:1::1", "::ffff:0:7f00:1", "fec0::1", "0.0.0.0"}},
		{Local, []string{"8.8.8.8", "127.0.0.1", "::1", "10.0.0.1", "fd00::1"}, []string{"169.254.169.254", "fe80::1", "0.0.0.0", "::", "224.0.0.1"}},
		{Any, []string{"0.0.0.0", "169.254.169.254", "224.0.0.1", "8.8.8.8"}, nil},
		{Policy{}, nil, []string{"8.8.8.8", "127.0.0.1"}},
	} {
		for _, a := range tc.allowed {
			if !tc.policy.Allows(netip.MustParseAddr(a)) {
				t.Errorf("%q refuses %s", tc.policy, a)
			}
		}
		for _, a := range tc.refused {
			if tc.policy.Allows(netip.MustParseAddr(a)) {
				t.Errorf("%q allows %s", tc.policy, a)
			}
		}
	}
}

func TestParsePolicy(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"any": "any", " ANY ": "any", "public": "public", "public,private,loopback": "public,private,loopback",
		"loopback, public": "public,loopback", "link-local,public,public": "public,link-local",
	} {
		p, err := ParsePolicy(in)
		if err != nil || p.String() != want {
			t.Errorf("ParsePolicy(%q) = %q, %v; want %q", in, p, err, want)
		}
	}
	if p, _ := ParsePolicy("public,private,loopback"); p != Local {
		t.Errorf("public,private,loopback is not Local: %v", p)
	}
	for _, in := range []string{"", "none", "public,", "public;private", "all", "reserved"} {
		if _, err := ParsePolicy(in); err == nil {
			t.Errorf("ParsePolicy(%q) accepted", in)
		}
	}
}

// The check runs on the address actually dialled.
func TestControl(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	get := func(p Policy) error {
		c := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{Timeout: time.Minute, Control: p.Control}).DialContext}}
		resp, err := c.Get(srv.URL)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := get(PublicOnly); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("public only reached a loopback server: %v", err)
	}
	if err := get(Local); err != nil {
		t.Errorf("local: %v", err)
	}
	if err := PublicOnly.Control("unix", "/tmp/x.sock", nil); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("a unix socket: %v", err)
	}
	if err := Local.Control("tcp4", "not an address", nil); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("an unparsable address: %v", err)
	}
}

// The classes agree with net/netip's own predicates, and an address that
// carries an IPv4 address is never allowed more than that address.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"127.0.0.1", "::7f00:1", "2002:7f00:1::1", "64:ff9b::7f00:1", "::ffff:0:7f00:1", "fe80::1", "8.8.8.8"} {
		a := netip.MustParseAddr(s)
		b := a.As16()
		f.Add(b[:])
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) != 16 {
			return
		}
		a := netip.AddrFrom16([16]byte(raw))
		c := Classify(a)
		u := a.Unmap()
		if u.IsLoopback() && c != Loopback || u.IsPrivate() && c != Private && c != Reserved ||
			u.IsLinkLocalUnicast() && c != LinkLocal || (u.IsMulticast() || u.IsUnspecified()) && c != Reserved {
			t.Fatalf("Classify(%s) = %v", a, c)
		}
		if c == Public && !u.IsGlobalUnicast() {
			t.Fatalf("Classify(%s) = public, not a global unicast address", a)
		}
		b := a.As16()
		v4 := netip.AddrFrom4([4]byte(b[12:16]))
		if sixToFour.Contains(a) {
			v4 = netip.AddrFrom4([4]byte(b[2:6]))
		}
		if (in(a, translated6) || sixToFour.Contains(a)) && c != Classify(v4) {
			t.Fatalf("Classify(%s) = %v, its IPv4 address %s is %v", a, c, v4, Classify(v4))
		}
		if PublicOnly.Allows(a) && c != Public || Local.Allows(a) && c == LinkLocal {
			t.Fatalf("%s (%v) allowed", a, c)
		}
	})
}

func FuzzParsePolicy(f *testing.F) {
	for _, s := range []string{"any", "public", "public,private,loopback", "link-local", "x,,y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParsePolicy(s)
		if err != nil {
			return
		}
		back, err := ParsePolicy(p.String())
		if err != nil || back != p {
			t.Fatalf("ParsePolicy(%q) = %q, read back as %q, %v", s, p, back, err)
		}
		if p.IsZero() {
			t.Fatalf("ParsePolicy(%q) allows nothing", s)
		}
	})
}

func ExamplePolicy_Allows() {
	p, _ := ParsePolicy("public")
	for _, a := range []string{"93.184.216.34", "127.0.0.1", "2002:7f00:1::1", "169.254.169.254"} {
		fmt.Println(a, p.Allows(netip.MustParseAddr(a)))
	}
	// Output:
	// 93.184.216.34 true
	// 127.0.0.1 false
	// 2002:7f00:1::1 false
	// 169.254.169.254 false
}
