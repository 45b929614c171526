package appkit_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"testing"

	"github.com/appkitgo/appkit/appkit"
)

// HOST picks the interface (unset: every one, as before); PORT keeps its
// meaning; a HOST that is not a host is refused by name.
func TestListenAddrHost(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		host, port string
		want       string
		wantErr    string
	}{
		{"", "", ":8080", ""},
		{"127.0.0.1", "", "127.0.0.1:8080", ""},
		{"127.0.0.1", "9001", "127.0.0.1:9001", ""},
		{"::1", "9001", "[::1]:9001", ""},
		{"[::1]", "9001", "[::1]:9001", ""},
		{"localhost", "0", "localhost:0", ""},
		{"0.0.0.0", "80", "0.0.0.0:80", ""},
		{"app.internal.example", "80", "app.internal.example:80", ""},
		{"127.0.0.1:80", "", "", `HOST: want an IP address or a host name to listen on (no port), got "127.0.0.1:80"`},
		{"http://localhost", "", "", `HOST: want an IP address or a host name to listen on (no port), got "http://localhost"`},
		{"a b", "", "", `HOST: want an IP address or a host name to listen on (no port), got "a b"`},
		{"127.0.0.1", "http", "", `PORT: want a port number 0..65535, got "http"`},
	} {
		getenv := func(key string) string {
			return map[string]string{"HOST": tc.host, "PORT": tc.port}[key]
		}
		addr, err := appkit.ListenAddr(getenv)
		if tc.wantErr != "" {
			if err == nil || err.Error() != tc.wantErr {
				t.Errorf("HOST=%q PORT=%q: got %q, %v; want the error %s", tc.host, tc.port, addr, err, tc.wantErr)
			}
			continue
		}
		if err != nil || addr != tc.want {
			t.Errorf("HOST=%q PORT=%q: got %q, %v; want %q", tc.host, tc.port, addr, err, tc.want)
		}
	}
}

// serveOn serves a small app on a listener of addr and returns its port.
func serveOn(t *testing.T, addr string) int {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("listen on %s: %v", addr, err)
	}
	app := &appkit.App{ID: "hosted", Name: "Hosted", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: quietLogger(),
		Actions: []appkit.Action{{ID: "noop", Name: "Noop", Run: func(context.Context, *appkit.ActionRequest) error { return nil }}}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- appkit.ServeListener(ctx, ln, app) }()
	t.Cleanup(func() { cancel(); <-done })
	return ln.Addr().(*net.TCPAddr).Port
}

// get asks for the descriptor at 127.0.0.1:port with the given Host.
func get(t *testing.T, port int, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(port)+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m struct{ Message string }
	json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m.Message
}

// An app on a loopback listener (as under "appkit dev") serves only the
// requests addressed to it there: a DNS-rebinding page's Host is refused
// with 421 {message}. On every interface the Host is the operator's
// business and is not checked.
func TestServeListenerChecksHostOnLoopback(t *testing.T) {
	t.Parallel()
	port := serveOn(t, "127.0.0.1:0")
	p := strconv.Itoa(port)
	for _, host := range []string{"127.0.0.1:" + p, "localhost:" + p, "[::1]:" + p} {
		if status, msg := get(t, port, host); status != http.StatusOK {
			t.Errorf("Host %s: %d %s", host, status, msg)
		}
	}
	for _, host := range []string{"rebind.evil.example:" + p, "localhost:" + strconv.Itoa(port+1), "localhost"} {
		if status, msg := get(t, port, host); status != http.StatusMisdirectedRequest || msg == "" {
			t.Errorf("Host %s: %d %q, want 421 with a message", host, status, msg)
		}
	}
	all := serveOn(t, ":0")
	if status, msg := get(t, all, "app.example.com"); status != http.StatusOK {
		t.Errorf("on every interface, Host app.example.com: %d %s", status, msg)
	}
}
