package host

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// maxForwardedHops bounds the X-Forwarded-For entries read, from the
// right.
const maxForwardedHops = 20

// clientAddr is the address of r's client. It is the connection's peer,
// unless the peer is one of cfg.TrustedProxies: then X-Forwarded-For is
// read from the right (the entry the nearest proxy added first), trusted
// proxies are passed over, and the first other address is the client's.
// An entry that is not an address ends the walk at the proxy that added
// it. Without trusted proxies no forwarded header is read: a client
// cannot choose the address its limits are counted against.
func (h *Host) clientAddr(r *http.Request) string {
	peer := peerAddr(r)
	if len(h.cfg.TrustedProxies) == 0 {
		return peer
	}
	addr, err := netip.ParseAddr(peer)
	if err != nil {
		return peer
	}
	return forwardedClient(addr.Unmap(), r.Header.Values("X-Forwarded-For"), h.cfg.TrustedProxies).String()
}

// forwardedClient walks the X-Forwarded-For values (as received, in
// order) from the right while the address at hand is a trusted proxy.
func forwardedClient(peer netip.Addr, values []string, trusted []netip.Prefix) netip.Addr {
	var hops []string
	for _, v := range values {
		hops = append(hops, strings.Split(v, ",")...)
	}
	client := peer
	for i := len(hops) - 1; i >= 0 && len(hops)-i <= maxForwardedHops && isTrusted(client, trusted); i-- {
		a, ok := parseHop(hops[i])
		if !ok {
			break
		}
		client = a
	}
	return client
}

// parseHop reads one X-Forwarded-For entry: an address, maybe with a port
// or in brackets.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// peerAddr is the connection's remote address without the port.
func peerAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// clientIP is the client's address as logRequests resolved it (see
// clientAddr), else the connection's peer.
func clientIP(r *http.Request) string {
	if ri, ok := r.Context().Value(infoKey{}).(*reqInfo); ok && ri.client != "" {
		return ri.client
	}
	return peerAddr(r)
}

// limitKey is the key a client's address is counted under by the
// throttles (sign-in, invalid tokens, webhook events): an IPv4 address is
// itself, an IPv6 address counts with its /64 (one subscriber's network:
// a client has a whole /64 to pick addresses from).
func limitKey(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	if a = a.Unmap(); a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a.WithZone(""), 64).Masked().String()
}

// ParseTrustedProxies reads a comma-separated list of addresses and CIDR
// prefixes ("10.0.0.0/8, 127.0.0.1, fd00::/8"): the reverse proxies whose
// X-Forwarded-For the host believes. An empty list trusts none.
func ParseTrustedProxies(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if strings.Contains(part, "/") {
			p, err := netip.ParsePrefix(part)
			if err != nil {
				return nil, fmt.Errorf("trusted proxies: %q is not an address or a CIDR prefix", part)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(part)
		if err != nil {
			return nil, fmt.Errorf("trusted proxies: %q is not an address or a CIDR prefix", part)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
