package hooks

import (
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/examples/webhooks/shop"
)

func TestParseSignature(t *testing.T) {
	mac := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		h    string
		macs int
		err  string
	}{
		{"t=1700000000,v1=" + mac, 1, ""},
		{" t=1700000000 , v1=" + mac + ",v1=" + mac + ",v0=xyz", 2, ""},
		{"", 0, "missing"},
		{"t=1700000000", 0, "want t="},
		{"v1=" + mac, 0, "want t="},
		{"t=-5,v1=" + mac, 0, "not a Unix time"},
		{"t=1,t=2,v1=" + mac, 0, "two timestamps"},
		{"t=1700000000,v1=abc", 0, "64 hex digits"},
		{"t=1700000000;v1=" + mac, 0, "not a Unix time"},
		{"garbage", 0, "not key=value"},
		{strings.Repeat("t=1,", 300), 0, "longer than"},
	} {
		_, _, macs, err := parseSignature(tc.h)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("parseSignature(%.30q) = %v, want an error with %q", tc.h, err, tc.err)
		case tc.err == "" && (err != nil || len(macs) != tc.macs):
			t.Errorf("parseSignature(%.30q) = %d macs, %v; want %d", tc.h, len(macs), err, tc.macs)
		}
	}
}

func TestDecodeEvent(t *testing.T) {
	for _, tc := range []struct{ body, err string }{
		{`{"event":"order.created","order":{"id":"o-1","customer":"Ada","status":"paid","total":3,"items":1}}`, ""},
		{`{"event":"order.deleted","order":{"id":"o-1"}}`, ""},
		{`{"event":"order.refunded","order":{"id":"o-1"}}`, "not an order event"},
		{`{"event":"order.updated","order":{"id":"","customer":"Ada","status":"paid"}}`, "order.id"},
		{`{"event":"order.updated","order":{"id":"o\n1","customer":"Ada","status":"paid"}}`, "order.id"},
		{`{"event":"order.updated","order":{"id":"o-1","customer":"Ada","status":"lost"}}`, "order.status"},
		{`{"event":"order.updated","order":{"id":"o-1","customer":"","status":"paid"}}`, "order.customer"},
		{`{"event":"order.updated","order":{"id":"o-1","customer":"Ada","status":"paid","items":-1}}`, "out of range"},
		{`{"event":"order.updated"} {}`, "more than one"},
		{`[1]`, "not the shop's JSON"},
	} {
		_, err := decodeEvent([]byte(tc.body))
		if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("decodeEvent(%s) = %v, want %q", tc.body, err, tc.err)
		}
	}
}

// Whatever the params and body, verify never panics, and it accepts an
// event only when it carries the signature of the body under the hook's
// secret.
func FuzzVerify(f *testing.F) {
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	a, err := New(nil, Config{Key: []byte("0123456789abcdef"), Now: func() time.Time { return now }})
	if err != nil {
		f.Fatal(err)
	}
	id := "wh_" + strings.Repeat("1", 24)
	body := `{"event":"order.updated","order":{"id":"o-1","customer":"Ada","status":"paid","total":3,"items":1}}`
	f.Add(id, shop.Sign(a.secret(id), now, []byte(body)), body)
	f.Add(id, "t=1,v1=00", "{}")
	f.Add("wh_x", "", "")
	f.Fuzz(func(t *testing.T, hook, sig, body string) {
		ev := &appkit.WebhookEvent{Params: map[string]any{shop.HeaderHook: hook, strings.ToLower(shop.HeaderSignature): sig}, Payload: []byte(body)}
		got, e, err := a.verify(ev)
		if err != nil {
			return
		}
		if got != hook || e == nil || !validHookID(hook) {
			t.Fatalf("verified %q as %q", hook, got)
		}
		ts, _, macs, err := parseSignature(sig)
		if err != nil {
			t.Fatalf("verified an unparsable signature %q", sig)
		}
		sec, _ := strconv.ParseInt(ts, 10, 64)
		want := shop.Sign(a.secret(hook), time.Unix(sec, 0), ev.Body())
		if !slices.ContainsFunc(macs, func(m []byte) bool { return "t="+ts+",v1="+hex.EncodeToString(m) == want }) {
			t.Fatalf("verified a signature %q that is not the body's (%s)", sig, want)
		}
	})
}

func FuzzParseSignature(f *testing.F) {
	f.Add("t=1700000000,v1=" + strings.Repeat("ab", 32))
	f.Add("t=1,t=2")
	f.Fuzz(func(t *testing.T, h string) {
		ts, at, macs, err := parseSignature(h)
		if err != nil {
			return
		}
		if len(macs) == 0 || at.Unix() <= 0 || ts == "" {
			t.Fatalf("parseSignature(%q) = %q, %v, %d macs", h, ts, at, len(macs))
		}
		for _, m := range macs {
			if len(m) != 32 {
				t.Fatalf("a mac of %d bytes", len(m))
			}
		}
	})
}
