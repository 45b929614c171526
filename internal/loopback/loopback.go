// Package loopback guards servers meant for this machine only against DNS
// rebinding: a page of another site whose name resolves to 127.0.0.1 can
// make a browser on this machine send requests to a loopback server, and
// read the answers, as if they were same-origin. Such requests still name
// the other site in their Host header; [Guard] refuses them.
package loopback

import (
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// Only reports whether addr is a TCP address on a loopback IP (127.0.0.0/8,
// ::1): a listener there accepts connections from this machine only.
func Only(addr net.Addr) bool {
	ta, ok := addr.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// Guard serves next only the requests addressed to the server by a
// loopback name: a Host header of localhost or a loopback IP (127.0.0.1,
// [::1], ...) with port (no port: 80, or 443 over TLS), or one of the
// names in also (the server's public host names, such as a reverse
// proxy's, with any port or none). Other requests are answered 421
// Misdirected Request with a JSON {"message": ...} naming the Host
// refused and the addresses accepted. Names compare case-insensitively.
func Guard(next http.Handler, port int, also ...string) http.Handler {
	names := map[string]bool{}
	for _, a := range also {
		if h, _, err := net.SplitHostPort(a); err == nil {
			a = h
		}
		names[strings.ToLower(strings.Trim(a, "[]"))] = true
	}
	want := strconv.Itoa(port)
	accepted := "localhost:" + want + ", 127.0.0.1:" + want + " or [::1]:" + want
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if allowed(r, want, names) {
			next.ServeHTTP(w, r)
			return
		}
		host := r.Host
		if len(host) > 200 {
			host = host[:200] + "…"
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusMisdirectedRequest)
		json.NewEncoder(w).Encode(map[string]string{"message": "this server listens on this machine only and answers requests addressed to " +
			accepted + ", not to " + strconv.Quote(host) + " (a page of another site can reach this machine by DNS rebinding)"})
	})
}

// allowed says whether r's Host names this server.
func allowed(r *http.Request, port string, names map[string]bool) bool {
	host, p, err := net.SplitHostPort(r.Host)
	if err != nil { // no port
		host, p = r.Host, "80"
		if r.TLS != nil {
			p = "443"
		}
	}
	host = strings.ToLower(strings.Trim(host, "[]"))
	if host == "" {
		return false
	}
	if names[host] {
		return true
	}
	if p != port {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
