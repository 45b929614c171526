// Package calllog carries the calls an app makes to its upstream API while
// it answers one request of the host, from the app to the host.
//
// The host asks with the request header [RequestHeader] ("calls", or
// "calls, bodies"). appkit's middleware then puts a [Collector] in the
// request's context ([NewContext]); appkit/upstream adds each attempt of a
// call to the collector it finds there ([From]); before the answer's
// header is written, appkit sets [AnswerHeader] to [Collector.Header]: a
// compact, ASCII-only JSON object {"calls": [...], "dropped": n}, at most
// [MaxHeader] bytes. Without the request header nothing is collected.
//
// The host reads the answer header with [Decode], which treats it as
// hostile: bounded before it is parsed, decoded strictly, every field
// bounded; anything else is refused whole.
//
// What is reported is masked by the app (the account's secrets, the values
// of secret-named JSON fields and query parameters, with
// internal/secretmask); the host masks it again with what it knows.
package calllog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/appkitgo/appkit/internal/capped"
)

// The headers of the exchange.
const (
	// RequestHeader is the host's request for the calls: "calls", or
	// "calls, bodies" for the bodies too.
	RequestHeader = "X-Appkit-Upstream"
	// AnswerHeader is the app's report of the calls, on its answer.
	AnswerHeader = "X-Appkit-Upstream"
)

// Bounds of a report, on both sides: the app cuts to them, the host
// refuses a report beyond them.
const (
	// MaxCalls is the most calls a report holds; the others are counted in
	// its dropped.
	MaxCalls = 50
	// MaxBody is the most bytes of a body reported (the cut ones end with
	// "…", within the bound).
	MaxBody = 2 << 10
	// MaxURL bounds a reported URL; MaxError an error; MaxMethod a method.
	MaxURL    = 2 << 10
	MaxError  = 512
	MaxMethod = 16
	// MaxHeader bounds the answer header an app sends when the bodies were
	// asked: bodies are left out first, then calls (counted as dropped),
	// until it fits.
	MaxHeader = 32 << 10
	// MaxHeaderCalls bounds it when only the calls were asked (the runs of
	// a host in production): the last calls are left out, counted, so
	// that the answer's whole header stays within the 4 KiB that a reverse
	// proxy in front of the app may hold by default (nginx's
	// proxy_buffer_size; beyond it, the proxy answers 502 and the run
	// fails).
	MaxHeaderCalls = 3 << 10
	// MaxHeaderRead bounds the answer header the host reads: a longer one
	// is ignored unparsed.
	MaxHeaderRead = 64 << 10
	// MaxDropped bounds the dropped count the host accepts.
	MaxDropped = 1 << 20
	// maxDurationMS bounds a reported duration (a day).
	maxDurationMS = 24 * 60 * 60 * 1000
	// maxBytes bounds a reported answer size (1 TiB).
	maxBytes = 1 << 40
)

// Call is one attempt of a call to the upstream API.
type Call struct {
	// Method and URL of the call, secrets masked.
	Method string `json:"method"`
	URL    string `json:"url"`
	// Status is the answer's status, 0 when none came.
	Status int `json:"status,omitempty"`
	// DurationMS is how long the attempt took; Bytes the answer's size.
	DurationMS int64 `json:"durationMs"`
	Bytes      int64 `json:"bytes,omitempty"`
	// Request and Response are the bodies (when asked), masked and cut.
	Request  string `json:"request,omitempty"`
	Response string `json:"response,omitempty"`
	// Error says why no answer came (or why it was refused), masked.
	Error string `json:"error,omitempty"`
}

// report is the answer header's JSON.
type report struct {
	Calls   []Call `json:"calls"`
	Dropped int    `json:"dropped"`
}

// Asked parses the request header's value: whether the calls are asked,
// and their bodies. Unknown words are ignored; a value longer than 100
// bytes asks for nothing.
func Asked(v string) (calls, bodies bool) {
	if v == "" || len(v) > 100 {
		return false, false
	}
	for w := range strings.SplitSeq(v, ",") {
		switch strings.ToLower(strings.TrimSpace(w)) {
		case "calls":
			calls = true
		case "bodies":
			bodies = true
		}
	}
	return calls, calls && bodies
}

// Collector keeps the calls of one request, at most [MaxCalls]. It is safe
// for concurrent use; a nil Collector collects nothing.
type Collector struct {
	bodies bool
	calls  capped.List[Call]
}

// New returns a collector; bodies says whether the bodies were asked.
func New(bodies bool) *Collector {
	return &Collector{bodies: bodies, calls: capped.List[Call]{Max: MaxCalls}}
}

type ctxKey struct{}

// NewContext returns ctx carrying c.
func NewContext(ctx context.Context, c *Collector) context.Context {
	return context.WithValue(ctx, ctxKey{}, c)
}

// From returns the collector of ctx, nil when there is none.
func From(ctx context.Context) *Collector {
	c, _ := ctx.Value(ctxKey{}).(*Collector)
	return c
}

// Bodies reports whether the bodies were asked.
func (c *Collector) Bodies() bool { return c != nil && c.bodies }

// Add keeps a call (its strings cut to the bounds; bodies dropped unless
// asked), or counts it as dropped beyond [MaxCalls]. A method is cut
// without "…" (an HTTP method holds none). A call that [Decode] would
// refuse even so (no method or URL, a method that is not an HTTP token, a
// status, duration or size out of its range) is counted as dropped too:
// one bad call must not cost the host the report of every other.
func (c *Collector) Add(call Call) {
	if c == nil {
		return
	}
	call.Method = oneLine(call.Method)
	if len(call.Method) > MaxMethod {
		call.Method = call.Method[:MaxMethod]
	}
	call.URL = Cut(oneLine(call.URL), MaxURL)
	call.Error = Cut(oneLine(call.Error), MaxError)
	if c.bodies {
		call.Request, call.Response = Cut(call.Request, MaxBody), Cut(call.Response, MaxBody)
	} else {
		call.Request, call.Response = "", ""
	}
	if call.check() != nil {
		c.calls.Drop()
		return
	}
	c.calls.Add(call)
}

// Header is the answer header's value: the calls kept so far as compact
// ASCII-only JSON of at most [MaxHeader] bytes when the bodies were asked,
// [MaxHeaderCalls] otherwise ("" when there were none). To fit, the
// bodies are left out, from the last call back, then the last calls,
// counted as dropped.
func (c *Collector) Header() string {
	if c == nil {
		return ""
	}
	calls, dropped := c.calls.Items()
	if len(calls) == 0 && dropped == 0 {
		return ""
	}
	limit := MaxHeaderCalls
	if c.bodies {
		limit = MaxHeader
	}
	return encode(calls, dropped, limit)
}

// encode writes the report in at most limit bytes, its dropped count at
// most [MaxDropped] (the most the host accepts).
func encode(calls []Call, dropped, limit int) string {
	enc := make([][]byte, len(calls))
	total := 0
	for i := range calls {
		enc[i] = encodeCall(calls[i])
		total += len(enc[i]) + 1
	}
	// {"calls":[...],"dropped":N}: the frame and the commas.
	frame := func() int { return len(`{"calls":[],"dropped":}`) + len(strconv.Itoa(dropped+len(calls))) }
	for i := len(calls) - 1; i >= 0 && total+frame() > limit; i-- {
		if calls[i].Request == "" && calls[i].Response == "" {
			continue
		}
		calls[i].Request, calls[i].Response = "", ""
		total -= len(enc[i])
		enc[i] = encodeCall(calls[i])
		total += len(enc[i])
	}
	for len(enc) > 0 && total+frame() > limit {
		total -= len(enc[len(enc)-1]) + 1
		enc = enc[:len(enc)-1]
		dropped++
	}
	var b bytes.Buffer
	b.WriteString(`{"calls":[`)
	for i, e := range enc {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e)
	}
	b.WriteString(`],"dropped":`)
	b.WriteString(strconv.Itoa(min(dropped, MaxDropped)))
	b.WriteByte('}')
	return b.String()
}

// encodeCall is a call's JSON, ASCII only: every rune beyond ASCII and
// every control character (DEL too) \u-escaped, as a header value must be.
func encodeCall(c Call) []byte {
	raw, err := json.Marshal(c)
	if err != nil { // strings and numbers only: cannot happen
		return []byte(`{}`)
	}
	return asciiJSON(raw)
}

// asciiJSON escapes what json.Marshal leaves as it is beyond ASCII (in
// strings only: JSON has it nowhere else) and DEL.
func asciiJSON(raw []byte) []byte {
	clean := true
	for _, c := range raw {
		if c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return raw
	}
	out := make([]byte, 0, len(raw)+32)
	for len(raw) > 0 {
		c := raw[0]
		if c < 0x7f {
			out = append(out, c)
			raw = raw[1:]
			continue
		}
		r, n := utf8.DecodeRune(raw)
		raw = raw[n:]
		if r1, r2 := utf16.EncodeRune(r); r1 != unicode.ReplacementChar {
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2) // beyond the BMP: a surrogate pair
			continue
		}
		out = fmt.Appendf(out, `\u%04x`, r)
	}
	return out
}

// Cut returns s cut to at most n bytes, at a rune boundary, ending with
// "…" when cut; invalid UTF-8 is replaced.
func Cut(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	const more = "…"
	i := max(n-len(more), 0)
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + more
}

// oneLine replaces the control characters of s (C0, DEL, C1:
// unicode.IsControl) with spaces.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// ErrInvalid is what [Decode] returns for a report it refuses.
var ErrInvalid = errors.New("calllog: invalid report")

// Decode reads an answer header's value, hostile: longer than
// [MaxHeaderRead] bytes, not exactly one JSON object of the report's
// fields (no other), more than [MaxCalls] calls, a method that is not an
// HTTP token of at most [MaxMethod] bytes, a URL, error or body beyond its
// bound or with control characters where none belong, a status outside
// 0..999, a negative or absurd duration, size or dropped count: refused
// whole, with an error wrapping [ErrInvalid].
func Decode(v string) ([]Call, int, error) {
	if len(v) > MaxHeaderRead {
		return nil, 0, fmt.Errorf("%w: %d bytes, want at most %d", ErrInvalid, len(v), MaxHeaderRead)
	}
	dec := json.NewDecoder(strings.NewReader(v))
	dec.DisallowUnknownFields()
	var r report
	if err := dec.Decode(&r); err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, 0, fmt.Errorf("%w: more than one JSON value", ErrInvalid)
	}
	if len(r.Calls) > MaxCalls {
		return nil, 0, fmt.Errorf("%w: %d calls, want at most %d", ErrInvalid, len(r.Calls), MaxCalls)
	}
	if r.Dropped < 0 || r.Dropped > MaxDropped {
		return nil, 0, fmt.Errorf("%w: dropped %d", ErrInvalid, r.Dropped)
	}
	for i, c := range r.Calls {
		if err := c.check(); err != nil {
			return nil, 0, fmt.Errorf("%w: call %d: %v", ErrInvalid, i, err)
		}
	}
	return r.Calls, r.Dropped, nil
}

// check bounds the fields of a decoded call.
func (c Call) check() error {
	switch {
	case c.Method == "" || len(c.Method) > MaxMethod || strings.ContainsFunc(c.Method, notTokenChar):
		return fmt.Errorf("method %q", Cut(c.Method, MaxMethod))
	case c.URL == "" || len(c.URL) > MaxURL || strings.ContainsFunc(c.URL, unicode.IsControl):
		return errors.New("url")
	case len(c.Error) > MaxError || strings.ContainsFunc(c.Error, unicode.IsControl):
		return errors.New("error")
	case len(c.Request) > MaxBody || len(c.Response) > MaxBody:
		return errors.New("body")
	case c.Status < 0 || c.Status > 999:
		return fmt.Errorf("status %d", c.Status)
	case c.DurationMS < 0 || c.DurationMS > maxDurationMS:
		return fmt.Errorf("duration %d", c.DurationMS)
	case c.Bytes < 0 || c.Bytes > maxBytes:
		return fmt.Errorf("bytes %d", c.Bytes)
	}
	return nil
}

// notTokenChar reports a rune that is not allowed in an HTTP method.
func notTokenChar(r rune) bool {
	if r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
		return false
	}
	return !strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}
