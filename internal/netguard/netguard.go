// Package netguard decides whether the host may dial an address: each
// address falls in one class (public, private, loopback, link-local or
// reserved) and a [Policy] is the set of classes it allows. The check is
// meant for the address actually dialled, after name resolution and on
// every redirect: [Policy.Control] is a net.Dialer Control function.
//
// # Classes
//
//   - Loopback: 127.0.0.0/8, ::1.
//   - Private: 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, shared address
//     space 100.64.0.0/10, unique local fc00::/7, deprecated site-local
//     fec0::/10, local-use NAT64 64:ff9b:1::/48.
//   - LinkLocal: 169.254.0.0/16 (cloud metadata services live there),
//     fe80::/10.
//   - Reserved: everything that is not a unicast address reachable on the
//     internet: unspecified (0.0.0.0/8, ::, which reach the local host),
//     multicast, broadcast, documentation, benchmarking, IETF protocol
//     assignments (192.0.0.0/24, 2001::/23, Teredo included), the 6to4
//     relay anycast 192.88.99.0/24, 240.0.0.0/4, discard-only 100::/64,
//     SRv6 5f00::/16, deprecated IPv4-compatible ::/96 (::7f00:1), and any
//     IPv6 address outside 2000::/3 not named above. A policy allows it
//     only when it allows everything ([Any]).
//   - Public: the rest.
//
// IPv6 forms that carry an IPv4 address are classed by that address: the
// IPv4-mapped ::ffff:0:0/96, the IPv4-translated ::ffff:0:0:0/96
// (::ffff:0:7f00:1 is loopback), NAT64 64:ff9b::/96 and 6to4 2002::/16
// (2002:7f00:1::1 is loopback).
package netguard

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"syscall"
)

// Class is a kind of address; a Policy is a set of them.
type Class uint8

// The classes of addresses.
const (
	// Reserved is the zero Class: never allowed but by Any.
	Reserved Class = 0
	// Public addresses are reachable on the internet.
	Public Class = 1 << iota
	// Private addresses belong to a private network.
	Private
	// Loopback addresses reach the host itself.
	Loopback
	// LinkLocal addresses reach the local link only.
	LinkLocal
)

var classNames = []struct {
	c    Class
	name string
}{{Public, "public"}, {Private, "private"}, {Loopback, "loopback"}, {LinkLocal, "link-local"}}

// String is the class's name as ParsePolicy reads it.
func (c Class) String() string {
	for _, n := range classNames {
		if n.c == c {
			return n.name
		}
	}
	return "reserved"
}

// Policy is the set of classes a dial may reach.
type Policy struct {
	allow Class
	any   bool
}

// Common policies.
var (
	// PublicOnly allows public addresses only.
	PublicOnly = Policy{allow: Public}
	// Local allows public, private and loopback addresses: what a
	// developer's host needs to reach apps on the same machine or network.
	Local = Policy{allow: Public | Private | Loopback}
	// Any allows every address, reserved ones included (no check).
	Any = Policy{any: true}
)

// ErrNotAllowed is wrapped by the errors of dials the policy refuses.
var ErrNotAllowed = errors.New("the address is not in the networks the host may reach")

// ParsePolicy reads a policy: "any", or a comma-separated list of classes
// among public, private, loopback and link-local ("public,private").
func ParsePolicy(s string) (Policy, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "any") {
		return Any, nil
	}
	var p Policy
	for part := range strings.SplitSeq(s, ",") {
		part = strings.ToLower(strings.TrimSpace(part))
		found := false
		for _, n := range classNames {
			if n.name == part {
				p.allow |= n.c
				found = true
			}
		}
		if !found {
			return Policy{}, fmt.Errorf("netguard: unknown network class %q: want any, or a list of public, private, loopback, link-local", part)
		}
	}
	return p, nil
}

// String is the policy as ParsePolicy reads it.
func (p Policy) String() string {
	if p.any {
		return "any"
	}
	var parts []string
	for _, n := range classNames {
		if p.allow&n.c != 0 {
			parts = append(parts, n.name)
		}
	}
	return strings.Join(parts, ",")
}

// IsZero reports the zero Policy, which allows nothing.
func (p Policy) IsZero() bool { return !p.any && p.allow == 0 }

// Allows reports whether the policy allows dialling a.
func (p Policy) Allows(a netip.Addr) bool {
	if p.any {
		return true
	}
	c := Classify(a)
	return c != Reserved && p.allow&c != 0
}

// Control checks the address a net.Dialer is about to connect to (use it
// as net.Dialer.Control): its error wraps ErrNotAllowed.
func (p Policy) Control(network, address string, _ syscall.RawConn) error {
	if p.any {
		return nil
	}
	if !strings.HasPrefix(network, "tcp") && !strings.HasPrefix(network, "udp") {
		return fmt.Errorf("%w: %s", ErrNotAllowed, network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !p.Allows(ap.Addr()) {
		return ErrNotAllowed
	}
	return nil
}

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

var (
	private4  = prefixes("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10")
	reserved4 = prefixes("0.0.0.0/8", "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "198.18.0.0/15",
		"198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4")
	private6  = prefixes("fc00::/7", "fec0::/10", "64:ff9b:1::/48")
	reserved6 = prefixes("::/96", "100::/64", "2001::/23", "2001:db8::/32", "3fff::/20", "5f00::/16", "ff00::/8")
	global6   = netip.MustParsePrefix("2000::/3")
	// Forms that carry an IPv4 address in their last 32 bits.
	translated6 = prefixes("::ffff:0:0:0/96", "64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
	loopback4   = netip.MustParsePrefix("127.0.0.0/8")
	linkLocal4  = netip.MustParsePrefix("169.254.0.0/16")
	linkLocal6  = netip.MustParsePrefix("fe80::/10")
)

func in(a netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Classify is the class of an address (Reserved for an invalid one).
func Classify(a netip.Addr) Class {
	a = a.WithZone("").Unmap()
	switch {
	case !a.IsValid():
		return Reserved
	case a.Is4():
		return classify4(a)
	case a == netip.IPv6Loopback():
		return Loopback
	case in(a, translated6):
		b := a.As16()
		return classify4(netip.AddrFrom4([4]byte(b[12:16])))
	case sixToFour.Contains(a):
		b := a.As16()
		return classify4(netip.AddrFrom4([4]byte(b[2:6])))
	case in(a, private6):
		return Private
	case linkLocal6.Contains(a):
		return LinkLocal
	case in(a, reserved6) || !global6.Contains(a):
		return Reserved
	}
	return Public
}

func classify4(a netip.Addr) Class {
	switch {
	case loopback4.Contains(a):
		return Loopback
	case linkLocal4.Contains(a):
		return LinkLocal
	case in(a, private4):
		return Private
	case in(a, reserved4):
		return Reserved
	}
	return Public
}
