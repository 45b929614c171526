package apps

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/calllog"
	"github.com/appkitgo/appkit/internal/capped"
	"github.com/appkitgo/appkit/internal/secretmask"
)

// maxAnswer bounds an answer of an app outside the engine's data calls.
const maxAnswer = 4 << 20

// AppError is a failure answered by an app (or a failed call to it).
type AppError struct {
	// Path is the endpoint called.
	Path string
	// Status is the HTTP status, 0 when no answer arrived.
	Status int
	// Message is the app's {message} (secrets masked) or what went wrong.
	Message string
	// TryLater is the app's tryLater flag.
	TryLater bool
}

func (e *AppError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s: %s", e.Path, e.Message)
	}
	return fmt.Sprintf("%s: %d: %s", e.Path, e.Status, e.Message)
}

// call posts body (JSON) to the app at base+path and decodes the answer
// into out (nil: ignored).
func (s *core) call(ctx context.Context, hc *http.Client, base, method, path string, body, out any) error {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case encodedBody:
		rd = bytes.NewReader(b)
	default:
		b2, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("%s: encode: %w", path, err)
		}
		rd = bytes.NewReader(b2)
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if hc == nil {
		hc = s.cfg.HTTPClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		var ne net.Error
		msg := err.Error()
		if errors.As(err, &ne) && ne.Timeout() || errors.Is(ctx.Err(), context.DeadlineExceeded) {
			msg = fmt.Sprintf("no answer within %s", s.cfg.RequestTimeout)
		}
		return &AppError{Path: path, Message: msg}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return &AppError{Path: path, Status: resp.StatusCode, Message: "the answer broke off"}
	}
	if len(data) > maxAnswer {
		return &AppError{Path: path, Status: resp.StatusCode, Message: fmt.Sprintf("answer larger than %d bytes", maxAnswer)}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := &AppError{Path: path, Status: resp.StatusCode}
		var b struct {
			Message  any  `json:"message"`
			TryLater bool `json:"tryLater"`
		}
		if json.Unmarshal(data, &b) == nil && b.Message != nil {
			e.Message = fmt.Sprint(b.Message)
		}
		e.TryLater = b.TryLater
		if e.Message == "" {
			e.Message = http.StatusText(resp.StatusCode)
		}
		if len(e.Message) > 500 {
			e.Message = e.Message[:500] + "…"
		}
		return e
	}
	if out == nil || len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return &AppError{Path: path, Status: resp.StatusCode, Message: "malformed JSON answer"}
	}
	return nil
}

// encodedBody is a request body already encoded as JSON: call sends its
// bytes as they are.
type encodedBody []byte

// withPayload encodes fields as a JSON object (without escaping &, <, >)
// and adds "payload" with the bytes of raw exactly as received: an event's
// signature is computed over those bytes, and re-encoding them (compacted,
// HTML-escaped) would break it. raw that is not JSON is sent as a JSON
// string.
func withPayload(fields map[string]any, raw []byte) (encodedBody, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(fields); err != nil {
		return nil, fmt.Errorf("encode the event: %w", err)
	}
	obj := bytes.TrimRight(buf.Bytes(), "\n")
	if len(obj) < 2 || obj[len(obj)-1] != '}' {
		return nil, errors.New("encode the event: not an object")
	}
	out := append([]byte(nil), obj[:len(obj)-1]...)
	if len(fields) > 0 {
		out = append(out, ',')
	}
	out = append(out, `"payload":`...)
	if json.Valid(raw) {
		out = append(out, raw...)
	} else {
		buf.Reset()
		if err := enc.Encode(string(raw)); err != nil {
			return nil, fmt.Errorf("encode the event: %w", err)
		}
		out = append(out, bytes.TrimRight(buf.Bytes(), "\n")...)
	}
	return append(out, '}'), nil
}

// ---- masking

// masker masks an account's secrets (secretmask, every spelling) and the
// secret-named fields of the bodies it is given, remembering their values
// so that a token an answer brings is masked from then on. It is safe for
// concurrent use; a nil *masker masks nothing.
type masker struct{ m *secretmask.Masker }

// newMasker collects the secrets of an account: values of password fields
// and of keys named like secrets (secretmask.SecretName), and, for each
// authentication with a password field, the base64 of "user:password"
// for each of its other fields (Basic credentials).
func newMasker(fields map[string]any, desc *protocol.Descriptor) *masker {
	m := &masker{m: secretmask.NewWith(secretmask.Options{Remember: true})}
	pw := map[string]bool{}
	if desc != nil {
		for _, a := range desc.Authentication {
			for _, f := range a.Fields {
				if f.Type != "password" {
					continue
				}
				pw[f.ID] = true
				pass, _ := fields[f.ID].(string)
				for _, u := range a.Fields {
					if user, ok := fields[u.ID].(string); ok && u.ID != f.ID && pass != "" {
						m.m.AddBasic(user, pass)
					}
				}
			}
		}
	}
	for k, v := range fields {
		if str, ok := v.(string); ok && (pw[k] || secretmask.SecretName(k)) {
			m.m.Add(str)
		}
	}
	return m
}

// mask replaces the secrets in s.
func (m *masker) mask(s string) string {
	if m == nil {
		return s
	}
	return m.m.Mask(s)
}

// url masks a URL an app reported, whether or not the app masked it: its
// user information and secret-named query and fragment parameters
// (secretmask.Masker.URL), then every known secret.
func (m *masker) url(raw string) string { return m.mask(noSecrets.URL(raw)) }

// urlsIn masks a text an app reported (an upstream call's error, which
// Go's client writes as `Get "https://…": …`): every URL in it (from
// "http://" or "https://" to the next space or quote) is masked as url
// masks it, then every known secret.
func (m *masker) urlsIn(text string) string {
	var b strings.Builder
	for {
		i := strings.Index(text, "http://")
		if j := strings.Index(text, "https://"); j >= 0 && (i < 0 || j < i) {
			i = j
		}
		if i < 0 {
			break
		}
		end := strings.IndexAny(text[i:], " \t\r\n\"'`<>")
		if end < 0 {
			end = len(text) - i
		}
		b.WriteString(text[:i])
		b.WriteString(noSecrets.URL(text[i : i+end]))
		text = text[i+end:]
	}
	b.WriteString(text)
	return m.mask(b.String())
}

// noSecrets masks no value, only the secret-named fields, query parameters
// and a URL's user information (secretmask.Masker.Fields, Query and URL): a
// nil *Masker does.
var noSecrets *secretmask.Masker

// maskJSON masks a body: the string values of secret-named keys are
// replaced (and remembered), then every known secret. The body is
// scanned, not decoded: whatever its size, and also when it is cut short
// or is not JSON at all, every secret-named field that it holds is masked;
// the rest keeps its bytes.
func (m *masker) maskJSON(b []byte) string {
	if m == nil {
		return string(b)
	}
	return m.m.JSON(b)
}

// ---- registration

// probe is an http.RoundTripper that notes whether GET / answered a
// success whose body starts as a JSON object.
type probe struct {
	base http.RoundTripper

	mu   sync.Mutex
	json bool
}

// RoundTrip implements http.RoundTripper.
func (p *probe) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := p.base.RoundTrip(req)
	if err != nil || req.Method != http.MethodGet || resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp, err
	}
	resp.Body = &firstByte{ReadCloser: resp.Body, seen: func(c byte) {
		p.mu.Lock()
		p.json = c == '{'
		p.mu.Unlock()
	}}
	return resp, nil
}

func (p *probe) answeredJSON() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.json
}

// firstByte reports the first byte of a body that is not white space.
type firstByte struct {
	io.ReadCloser
	done bool
	seen func(byte)
}

func (f *firstByte) Read(b []byte) (int, error) {
	n, err := f.ReadCloser.Read(b)
	for i := 0; i < n && !f.done; i++ {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
		default:
			f.done = true
			f.seen(b[i])
		}
	}
	return n, err
}

// transportOf is a client's transport (http.DefaultTransport for nil).
func transportOf(c *http.Client) http.RoundTripper {
	if c.Transport != nil {
		return c.Transport
	}
	return http.DefaultTransport
}

// ---- exchanges

// Exchange is one call to the app during a run, as kept in the history.
type Exchange struct {
	// Method and Path of the call (the path only: no host, no query).
	Method string `json:"method"`
	Path   string `json:"path"`
	// Status is the answer's status, 0 when none came.
	Status int `json:"status"`
	// DurationMS is how long the call took.
	DurationMS int64 `json:"durationMs"`
	// Request and Response are the bodies, secrets masked, cut at
	// maxExchangeBody bytes.
	Request  string `json:"request,omitempty"`
	Response string `json:"response,omitempty"`
	// Error says why no answer came.
	Error string `json:"error,omitempty"`
	// UpstreamReport is the call's request id and the app's own calls.
	UpstreamReport
}

// UpstreamReport is what an exchange says of the app's own work: the id
// the host sent with the call and the calls the app reported making to its
// upstream API while answering it.
type UpstreamReport struct {
	// RequestID is the id the host sent with the call (X-Request-Id); the
	// app's log lines for it carry the same id.
	RequestID string `json:"requestId,omitempty"`
	// Upstream are the calls the app made to its own API while answering,
	// as the app reported them; UpstreamDropped counts those it left out.
	Upstream        []UpstreamCall `json:"upstream,omitempty"`
	UpstreamDropped int            `json:"upstreamDropped,omitempty"`
}

// UpstreamCall is one call an app made to its upstream API while answering
// an exchange, as the app reported it (apps built with appkit/upstream
// report them; the app masks secrets, the host bounds what it keeps).
//
// The report is read from the answer's calllog.AnswerHeader and refused
// whole unless it is within every bound of calllog.Decode: at most
// calllog.MaxCalls calls, a method of at most calllog.MaxMethod bytes, a
// URL of calllog.MaxURL, an error of calllog.MaxError, bodies of
// calllog.MaxBody (each then masked again by the host, so a kept body may
// differ from what the app sent); one attempt of a retried call is one
// UpstreamCall.
//
// It is the report's own type: what the host keeps has the fields the app
// sent, masked again.
type UpstreamCall = calllog.Call

// Limits of what a run keeps of its exchanges.
const (
	maxExchanges    = 200
	maxExchangeBody = 16 << 10
)

// recorder is an http.RoundTripper that keeps the exchanges of a run.
//
// Each call carries a request id (X-Request-Id: the caller's, else a new
// one), kept as the exchange's RequestID, and asks the app for the calls
// it makes to its upstream API while answering (calllog.RequestHeader:
// "calls", or "calls, bodies" when bodies is set). What the app reports
// is hostile input: see upstream.
type recorder struct {
	base http.RoundTripper
	m    *masker
	// bodies asks for the bodies of the upstream calls too (the console's
	// test read, Config.UpstreamBodies).
	bodies bool
	// kept holds the first maxExchanges exchanges and counts the rest.
	kept capped.List[Exchange]
}

// newRecorder returns a recorder of the calls made through base, masked
// with m, asking the app for the bodies of its upstream calls when bodies
// is set (Config.UpstreamBodies, the console's test read), and the copy
// of base whose calls it records.
func newRecorder(base *http.Client, m *masker, bodies bool) (*recorder, *http.Client) {
	r := &recorder{base: transportOf(base), m: m, bodies: bodies}
	r.kept.Max = maxExchanges
	c := *base
	c.Transport = r
	return r, &c
}

// maxRequestID bounds an id the recorder passes on (the app makes its own
// beyond 128 bytes, and the two would differ).
const maxRequestID = 128

// newRequestID is a fresh request id: 16 hex digits.
func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// RoundTrip implements http.RoundTripper.
func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	id := req.Header.Get("X-Request-Id")
	if id == "" || len(id) > maxRequestID {
		id = newRequestID()
	}
	// A RoundTripper must not change the caller's request: the headers are
	// set on a copy (the body is the same).
	req = req.Clone(req.Context())
	req.Header.Set("X-Request-Id", id)
	ask := "calls"
	if r.bodies {
		ask = "calls, bodies"
	}
	req.Header.Set(calllog.RequestHeader, ask)
	ex := Exchange{Method: req.Method, Path: req.URL.Path, UpstreamReport: UpstreamReport{RequestID: id}}
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			b, _ := io.ReadAll(io.LimitReader(rc, maxExchangeBody+1))
			rc.Close()
			ex.Request = r.body(b)
		}
	}
	start := time.Now()
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		ex.DurationMS = time.Since(start).Milliseconds()
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		ex.Error = r.m.mask(err.Error())
		r.add(ex)
		return nil, err
	}
	ex.Status = resp.StatusCode
	ex.Upstream, ex.UpstreamDropped = r.upstream(resp.Header)
	resp.Body = &tap{ReadCloser: resp.Body, done: func(b []byte) {
		ex.DurationMS = time.Since(start).Milliseconds()
		ex.Response = r.body(b)
		r.add(ex)
	}}
	return resp, nil
}

// upstream is what the history keeps of the upstream calls the app
// reported in its answer's header. The header is hostile: one value of at
// most calllog.MaxHeaderRead bytes, decoded strictly with every field
// bounded (calllog.Decode), or nothing at all is kept, and the exchange is
// recorded as it would be without it. What is kept is masked again with
// the run's masker (the account's secrets, every secret an answer brought,
// secret-named JSON fields; a URL's credentials and secret-named query
// parameters, in the URL and in the error, see masker.url and urlsIn), without remembering anything new from it,
// and the bodies are kept only when they were asked.
func (r *recorder) upstream(h http.Header) ([]UpstreamCall, int) {
	vs := h.Values(calllog.AnswerHeader)
	if len(vs) != 1 {
		return nil, 0
	}
	calls, dropped, err := calllog.Decode(vs[0])
	if err != nil {
		return nil, 0
	}
	out := make([]UpstreamCall, 0, len(calls))
	for _, c := range calls {
		u := UpstreamCall{Method: c.Method, URL: r.m.url(c.URL), Status: c.Status, DurationMS: c.DurationMS,
			Bytes: c.Bytes, Error: r.m.urlsIn(c.Error)}
		if r.bodies {
			u.Request, u.Response = r.m.reported(c.Request), r.m.reported(c.Response)
		}
		out = append(out, u)
	}
	if len(out) == 0 {
		out = nil
	}
	return out, dropped
}

// body is what the history keeps of a body: its first maxExchangeBody
// bytes, secret fields and secrets masked (in a cut body too), never
// ending with the start of a secret. b holds up to maxExchangeBody+1
// bytes: one more says that the body was longer.
func (r *recorder) body(b []byte) string {
	m := noSecrets
	if r.m != nil {
		m = r.m.m
	}
	return m.Body(b, maxExchangeBody+len("…"), "…", len(b) > maxExchangeBody)
}

// add records a call that ended.
func (r *recorder) add(ex Exchange) { r.kept.Add(ex) }

// exchanges returns what was kept and how many exchanges were not.
func (r *recorder) exchanges() ([]Exchange, int) { return r.kept.Items() }

// tap keeps the first bytes of a body as it is read and reports them once,
// at EOF or Close.
type tap struct {
	io.ReadCloser
	buf  []byte
	once sync.Once
	done func([]byte)
}

func (t *tap) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if room := maxExchangeBody + 1 - len(t.buf); room > 0 {
		t.buf = append(t.buf, p[:min(n, room)]...)
	}
	if err != nil {
		t.once.Do(func() { t.done(t.buf) })
	}
	return n, err
}

func (t *tap) Close() error {
	t.once.Do(func() { t.done(t.buf) })
	return t.ReadCloser.Close()
}

func sortStrings(s []string) { sort.Strings(s) }

// reported masks a body an app reported (already masked by the app) again
// with the run's masker, remembering nothing new from it.
func (m *masker) reported(body string) string {
	fields := string(noSecrets.Fields([]byte(body)))
	if m == nil {
		return fields
	}
	return m.m.Mask(fields)
}
