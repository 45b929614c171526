package apps

import (
	"bytes"
	"context"
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
func (s *Service) call(ctx context.Context, hc *http.Client, base, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("%s: encode: %w", path, err)
		}
		rd = bytes.NewReader(b)
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

// validate checks an account with the app's /validate; the fields it
// answers (other than name) are merged into fields.
func (s *Service) validate(ctx context.Context, a *App, authID string, fields map[string]any) (string, error) {
	var resp map[string]any
	err := s.call(ctx, nil, a.URL, http.MethodPost, protocol.PathValidate, map[string]any{"id": authID, "fields": fields}, &resp)
	var ae *AppError
	if errors.As(err, &ae) && (ae.Status == http.StatusUnauthorized || ae.Status == http.StatusForbidden || ae.Status == http.StatusBadRequest) {
		return "", fmt.Errorf("%w: the app refused the account: %s", ErrInvalid, newMasker(fields, a.Descriptor).mask(ae.Message))
	}
	if err != nil {
		return "", fmt.Errorf("validate the account: %s", newMasker(fields, a.Descriptor).mask(err.Error()))
	}
	name, _ := resp["name"].(string)
	for k, v := range resp {
		if k != "name" {
			fields[k] = v
		}
	}
	return name, nil
}

// ---- masking

// secretKey says whether an account key holds a secret by its name.
func secretKey(k string) bool {
	k = strings.ToLower(k)
	for _, w := range []string{"token", "secret", "password", "passwd", "key", "code", "verifier", "credential", "signature", "authorization", "cookie"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// masker replaces secret values with ***.
type masker struct{ values []string }

// newMasker collects the secrets of an account: values of password fields
// and of keys named like secrets, of 4 characters or more.
func newMasker(fields map[string]any, desc *protocol.Descriptor) *masker {
	pw := map[string]bool{}
	if desc != nil {
		for _, a := range desc.Authentication {
			for _, f := range a.Fields {
				if f.Type == "password" {
					pw[f.ID] = true
				}
			}
		}
	}
	m := &masker{}
	for k, v := range fields {
		str, ok := v.(string)
		if !ok || len(str) < 4 || !(pw[k] || secretKey(k)) {
			continue
		}
		m.add(str)
	}
	return m
}

func (m *masker) add(v string) {
	if len(v) < 4 {
		return
	}
	m.values = append(m.values, v)
	if b, err := json.Marshal(v); err == nil {
		if esc := string(b[1 : len(b)-1]); esc != v {
			m.values = append(m.values, esc)
		}
	}
	if q := url.QueryEscape(v); q != v {
		m.values = append(m.values, q)
	}
	// Longer first, so that a secret holding another is masked whole.
	sort.Slice(m.values, func(i, j int) bool { return len(m.values[i]) > len(m.values[j]) })
}

func (m *masker) mask(s string) string {
	if m == nil {
		return s
	}
	for _, v := range m.values {
		s = strings.ReplaceAll(s, v, "***")
	}
	return s
}

// maskJSON masks a body: the values of secret-named keys are replaced
// (and remembered, so that a token an answer brings is masked from then
// on), then every known secret.
func (m *masker) maskJSON(b []byte) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if dec.Decode(&v) == nil {
		v = m.walk(v)
		if out, err := json.Marshal(v); err == nil {
			return m.mask(string(out))
		}
	}
	return m.mask(string(b))
}

func (m *masker) walk(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && secretKey(k) && k != "auth" {
				m.add(s)
				x[k] = "***"
				continue
			}
			x[k] = m.walk(e)
		}
	case []any:
		for i := range x {
			x[i] = m.walk(x[i])
		}
	}
	return v
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
}

// Limits of what a run keeps of its exchanges.
const (
	maxExchanges    = 200
	maxExchangeBody = 16 << 10
)

// recorder is an http.RoundTripper that keeps the exchanges of a run.
type recorder struct {
	base http.RoundTripper
	m    *masker

	mu      sync.Mutex
	list    []Exchange
	dropped int
}

func newRecorder(base *http.Client, m *masker) (*recorder, *http.Client) {
	rt := base.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	r := &recorder{base: rt, m: m}
	c := *base
	c.Transport = r
	return r, &c
}

// RoundTrip implements http.RoundTripper.
func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	ex := Exchange{Method: req.Method, Path: req.URL.Path}
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
	resp.Body = &tap{ReadCloser: resp.Body, done: func(b []byte) {
		ex.DurationMS = time.Since(start).Milliseconds()
		ex.Response = r.body(b)
		r.add(ex)
	}}
	return resp, nil
}

func (r *recorder) body(b []byte) string {
	if len(b) > maxExchangeBody {
		return r.m.mask(string(b[:maxExchangeBody])) + "…"
	}
	return r.m.maskJSON(b)
}

func (r *recorder) add(ex Exchange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.list) >= maxExchanges {
		r.dropped++
		return
	}
	r.list = append(r.list, ex)
}

// exchanges returns what was kept.
func (r *recorder) exchanges() ([]Exchange, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Exchange(nil), r.list...), r.dropped
}

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
