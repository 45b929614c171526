package hooks

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/examples/webhooks/shop"
)

// MaxEventBytes bounds an event's body.
const MaxEventBytes = 64 << 10

// verify checks an event: the hook id is one of this app's, the signature
// parses, is recent and matches the body under the hook's secret, and the
// body is a well-formed order event. It returns the hook id and the event;
// its errors are the refusals appkit answers with 401.
func (a *App) verify(ev *appkit.WebhookEvent) (string, *shop.Event, error) {
	id := header(ev.Params, shop.HeaderHook)
	if !validHookID(id) {
		return "", nil, fmt.Errorf("%s: not a webhook of this app", shop.HeaderHook)
	}
	ts, at, macs, err := parseSignature(header(ev.Params, shop.HeaderSignature))
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", shop.HeaderSignature, err)
	}
	if age := a.cfg.Now().Sub(at); age > a.cfg.Tolerance || age < -a.cfg.Tolerance {
		return "", nil, fmt.Errorf("%s: the event was signed %s from now, more than %s: refused as a replay", shop.HeaderSignature, age.Round(time.Second), a.cfg.Tolerance)
	}
	body := ev.Body()
	if len(body) > MaxEventBytes {
		return "", nil, fmt.Errorf("the event's body has %d bytes, at most %d", len(body), MaxEventBytes)
	}
	h := hmac.New(sha256.New, a.secret(id))
	h.Write([]byte(ts))
	h.Write([]byte{'.'})
	h.Write(body)
	want := h.Sum(nil)
	if !slices.ContainsFunc(macs, func(m []byte) bool { return hmac.Equal(m, want) }) {
		return "", nil, fmt.Errorf("%s: the signature does not match the event", shop.HeaderSignature)
	}
	e, err := decodeEvent(body)
	if err != nil {
		return "", nil, err
	}
	if k := header(ev.Params, shop.HeaderEvent); k != "" && k != e.Kind {
		return "", nil, fmt.Errorf("%s: %q, but the body says %q", shop.HeaderEvent, k, e.Kind)
	}
	return id, e, nil
}

// header returns a header's value from an event's params, its name matched
// without regard to case; a list's first string counts.
func header(params map[string]any, name string) string {
	for k, v := range params {
		if !strings.EqualFold(k, name) {
			continue
		}
		switch x := v.(type) {
		case string:
			return x
		case []any:
			if len(x) > 0 {
				s, _ := x[0].(string)
				return s
			}
		}
	}
	return ""
}

// parseSignature reads "t=<unix seconds>,v1=<hex>[,v1=<hex>...]" (several
// v1 while a secret is rotated; other schemes are ignored).
func parseSignature(h string) (ts string, at time.Time, macs [][]byte, err error) {
	if h == "" {
		return "", time.Time{}, nil, errors.New("missing")
	}
	if len(h) > 1024 {
		return "", time.Time{}, nil, errors.New("longer than 1024 bytes")
	}
	for _, part := range strings.Split(h, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return "", time.Time{}, nil, fmt.Errorf("%q is not key=value", part)
		}
		switch k {
		case "t":
			if ts != "" {
				return "", time.Time{}, nil, errors.New("two timestamps")
			}
			sec, err := strconv.ParseInt(v, 10, 64)
			if err != nil || sec <= 0 || sec > 1<<40 {
				return "", time.Time{}, nil, fmt.Errorf("timestamp %q is not a Unix time", v)
			}
			ts, at = v, time.Unix(sec, 0)
		case "v1":
			m, err := hex.DecodeString(v)
			if err != nil || len(m) != sha256.Size {
				return "", time.Time{}, nil, errors.New("a v1 signature is not 64 hex digits")
			}
			macs = append(macs, m)
		}
	}
	if ts == "" || len(macs) == 0 {
		return "", time.Time{}, nil, errors.New("want t=<unix seconds>,v1=<hex>")
	}
	return ts, at, macs, nil
}

// decodeEvent reads and checks an event's body.
func decodeEvent(body []byte) (*shop.Event, error) {
	var e shop.Event
	d := json.NewDecoder(bytes.NewReader(body))
	if err := d.Decode(&e); err != nil {
		return nil, fmt.Errorf("the event is not the shop's JSON: %v", err)
	}
	if d.More() {
		return nil, errors.New("the event holds more than one JSON value")
	}
	o := &e.Order
	switch {
	case e.Kind != shop.OrderCreated && e.Kind != shop.OrderUpdated && e.Kind != shop.OrderDeleted:
		return nil, fmt.Errorf("event kind %q is not an order event", e.Kind)
	case !plain(o.ID, 128):
		return nil, errors.New("order.id: want 1 to 128 printable characters")
	case e.Kind == shop.OrderDeleted:
	case !slices.Contains(Statuses, o.Status):
		return nil, fmt.Errorf("order.status %q is not one of %s", o.Status, strings.Join(Statuses, ", "))
	case !plain(o.Customer, 200):
		return nil, errors.New("order.customer: want 1 to 200 printable characters")
	case o.Items < 0 || o.Items > 1_000_000 || o.Total < 0 || o.Total > 1e12:
		return nil, errors.New("order: items or total out of range")
	}
	return &e, nil
}

// plain reports whether s has 1 to max bytes of printable text.
func plain(s string, max int) bool {
	if s == "" || len(s) > max || !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}
