package loopback_test

import (
	"crypto/tls"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/loopback"
)

func TestOnly(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80}, true},
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 2), Port: 80}, true},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 80}, true},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 80}, false},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 80}, false},
		{&net.TCPAddr{IP: net.IPv4(192, 168, 1, 2), Port: 80}, false},
		{&net.UnixAddr{Name: "/tmp/s", Net: "unix"}, false},
	} {
		if got := loopback.Only(tc.addr); got != tc.want {
			t.Errorf("Only(%v) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}

// Only requests addressed by a loopback name with the server's port (or by
// one of its public names) pass; a rebinding page's Host is refused with
// 421 and a JSON message.
func TestGuard(t *testing.T) {
	t.Parallel()
	h := loopback.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }), 8089, "appkit.example.com:443")
	for _, tc := range []struct {
		host string
		tls  bool
		pass bool
	}{
		{"localhost:8089", false, true},
		{"LocalHost:8089", false, true},
		{"127.0.0.1:8089", false, true},
		{"127.0.0.2:8089", false, true},
		{"[::1]:8089", false, true},
		{"appkit.example.com", false, true},
		{"APPKIT.example.com:443", true, true},
		{"evil.example:8089", false, false},
		{"localhost.evil.example:8089", false, false},
		{"localhost:8090", false, false},
		{"127.0.0.1:80", false, false},
		{"localhost", false, false},
		{"localhost", true, false},
		{"[::1]", false, false},
		{"192.168.1.2:8089", false, false},
		{"", false, false},
		{"localhost:", false, false},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = tc.host
		if tc.tls {
			r.TLS = &tls.ConnectionState{}
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if tc.pass {
			if w.Code != http.StatusOK || w.Body.String() != "ok" {
				t.Errorf("Host %q: %d %s, want it served", tc.host, w.Code, w.Body)
			}
			continue
		}
		var m struct{ Message string }
		if w.Code != http.StatusMisdirectedRequest || json.Unmarshal(w.Body.Bytes(), &m) != nil ||
			!strings.Contains(m.Message, "localhost:8089") || !strings.Contains(w.Header().Get("Content-Type"), "json") {
			t.Errorf("Host %q: %d %s, want 421 with a JSON message", tc.host, w.Code, w.Body)
		}
	}
	// A port-80 server takes a Host without a port.
	h80 := loopback.Guard(http.NotFoundHandler(), 80)
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Host = "localhost"
	w := httptest.NewRecorder()
	h80.ServeHTTP(w, r)
	if w.Code != http.StatusNotFound {
		t.Errorf("port 80, Host localhost: %d", w.Code)
	}
}
