package syncer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// AppError is a failure answered by the app (or a failed call to it): the
// endpoint, the HTTP status (0 when no answer arrived) and the app's message.
type AppError struct {
	// Path is the endpoint called.
	Path string
	// Status is the HTTP status, 0 for a network failure or timeout.
	Status int
	// Message is the app's {message}, or a description of the failure.
	Message string
	// Code is the app's optional {code}.
	Code string
	// TryLater is the app's {tryLater}: the same call may succeed later.
	TryLater bool
	// Timeout reports a call that did not answer in time.
	Timeout bool
	// RetryAfter is the wait the app asked for (Retry-After), if any.
	RetryAfter time.Duration
}

func (e *AppError) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Status != 0 {
		fmt.Fprintf(&b, ": %d", e.Status)
	}
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.Code != "" {
		b.WriteString(" (code " + e.Code + ")")
	}
	return b.String()
}

// Retryable reports whether the same call may succeed later: a network
// failure or timeout, 429, a 5xx, or tryLater.
func (e *AppError) Retryable() bool {
	return e.TryLater || e.Timeout || e.Status == 0 || e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// Retry is the policy for calls that may succeed later: up to Attempts calls,
// waiting an exponentially growing, jittered delay between them (Base,
// doubling, at most Max).
type Retry struct {
	// Attempts is the number of calls in all (at least 1).
	Attempts int
	// Base is the first delay.
	Base time.Duration
	// Max bounds one delay.
	Max time.Duration
}

// DefaultRetry is the policy of Options with a zero Retry: 6 calls over
// about a minute.
var DefaultRetry = Retry{Attempts: 6, Base: time.Second, Max: 30 * time.Second}

// delay is the wait before attempt n+1 (n from 1): "full jitter", a random
// duration up to the exponential bound, so that many runs hitting the same
// limit spread out.
func (r Retry) delay(n int) time.Duration {
	d := r.Base << (n - 1)
	if d > r.Max || d <= 0 {
		d = r.Max
	}
	if d <= 0 {
		return 0
	}
	return d/2 + rand.N(d/2+1)
}

// client calls one app.
type client struct {
	base    *url.URL
	http    *http.Client
	timeout time.Duration
	maxBody int64
	retry   Retry
	// onRetry is told about each failed attempt that will be retried.
	onRetry func(path string, attempt int, err error, wait time.Duration)
	// sleep waits between attempts (tests replace it).
	sleep func(ctx context.Context, d time.Duration) error
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func newClient(appURL string, hc *http.Client, timeout time.Duration, maxBody int64, retry Retry) (*client, error) {
	u, err := url.Parse(strings.TrimRight(appURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("app address %q: want http(s)://host[:port][/path]", appURL)
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	return &client{base: u, http: hc, timeout: timeout, maxBody: maxBody, retry: retry, sleep: sleepCtx}, nil
}

// maxErrorBody bounds the body of a failure answer that is read.
const maxErrorBody = 64 << 10

// send makes one call. The caller closes the answer's body and calls done;
// callCtx is the call's context (its deadline is RequestTimeout).
func (c *client) send(ctx context.Context, method, path string, body any) (resp *http.Response, callCtx context.Context, done context.CancelFunc, err error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: encode request: %w", path, err)
		}
		rd = bytes.NewReader(b)
	}
	callCtx, done = context.WithTimeout(ctx, c.timeout)
	u := *c.base
	u.Path = strings.TrimRight(u.Path, "/") + path
	req, err := http.NewRequestWithContext(callCtx, method, u.String(), rd)
	if err != nil {
		done()
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err = c.http.Do(req)
	if err != nil {
		done()
		return nil, nil, nil, c.netError(callCtx, path, err)
	}
	return resp, callCtx, done, nil
}

// failure is the *AppError of a non-2xx answer (its body read up to
// maxErrorBody), with the Retry-After it asks for.
func failure(path string, resp *http.Response, data []byte) *AppError {
	ae := errorFromBody(path, resp.StatusCode, data)
	if secs, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); err == nil && secs > 0 {
		ae.RetryAfter = time.Duration(secs) * time.Second
	}
	return ae
}

// raw makes one call and returns the status, content type and body of a
// 2xx answer; failures are *AppError.
func (c *client) raw(ctx context.Context, method, path string, body any) (int, string, []byte, error) {
	resp, callCtx, done, err := c.send(ctx, method, path, body)
	if err != nil {
		return 0, "", nil, err
	}
	defer done()
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return resp.StatusCode, resp.Header.Get("Content-Type"), data, failure(path, resp, data)
	}
	limit := min(c.maxBody, MaxAnswer)
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return 0, "", nil, c.netError(callCtx, path, err)
	}
	if int64(len(data)) > limit {
		return resp.StatusCode, "", nil, tooLarge(path, resp.StatusCode, limit)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), data, nil
}

// tooLarge is the error of an answer over its bound.
func tooLarge(path string, status int, limit int64) *AppError {
	return &AppError{Path: path, Status: status, Message: fmt.Sprintf("answer larger than %d bytes (decompressed)", limit)}
}

// notJSON is the error of a 2xx answer whose content type is not JSON
// (nil when it is, or says nothing).
func notJSON(path string, status int, ct string) error {
	if mt, _, err := mime.ParseMediaType(ct); ct != "" && err == nil && mt != "application/json" && !strings.HasSuffix(mt, "+json") && mt != "text/plain" {
		return &AppError{Path: path, Status: status, Message: fmt.Sprintf("answer is %s, not JSON", mt)}
	}
	return nil
}

// limitedBody reads an answer up to a bound, noting a read past it and
// the failure of the connection apart from what the reader makes of the
// bytes.
type limitedBody struct {
	r    io.Reader
	left int64
	over bool
	err  error // the connection's failure
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		// One byte more says whether the answer goes on.
		var one [1]byte
		if n, _ := io.ReadFull(l.r, one[:]); n > 0 {
			l.over = true
			return 0, errTooLarge
		}
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if err != nil && err != io.EOF {
		l.err = err
	}
	return n, err
}

var errTooLarge = errors.New("answer too large")

// fetchPage asks for a data page (with the retry policy) and decodes the
// answer as it arrives, bounded by MaxBody.
func (c *client) fetchPage(ctx context.Context, req any, d pageDecoder) (*page, error) {
	var p *page
	err := c.retrying(ctx, c.retry, protocol.PathData, func() error {
		var err error
		p, err = c.stream(ctx, http.MethodPost, protocol.PathData, req, d.decode)
		return err
	})
	return p, err
}

// stream makes one call and hands a 2xx answer's body to read as it
// arrives; failures are *AppError. A 204 reads as {}.
func (c *client) stream(ctx context.Context, method, path string, body any, read func(io.Reader) (*page, error)) (*page, error) {
	resp, callCtx, done, err := c.send(ctx, method, path, body)
	if err != nil {
		return nil, err
	}
	defer done()
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		return nil, failure(path, resp, data)
	}
	if err := notJSON(path, resp.StatusCode, resp.Header.Get("Content-Type")); err != nil {
		return nil, err
	}
	var r io.Reader = strings.NewReader("{}")
	lb := &limitedBody{r: resp.Body, left: c.maxBody}
	if resp.StatusCode != http.StatusNoContent {
		r = lb
	}
	p, err := read(r)
	switch {
	case lb.over:
		return nil, tooLarge(path, resp.StatusCode, c.maxBody)
	case lb.err != nil:
		return nil, c.netError(callCtx, path, lb.err)
	case err != nil:
		return nil, &AppError{Path: path, Status: resp.StatusCode, Message: "malformed JSON answer: " + err.Error()}
	}
	return p, nil
}

func (c *client) netError(ctx context.Context, path string, err error) error {
	var ne net.Error
	timeout := errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
	msg := "no answer"
	if timeout {
		msg = fmt.Sprintf("no answer within %s", c.timeout)
	} else {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL may carry secrets in its query; name the endpoint instead
		}
		msg = err.Error()
	}
	return &AppError{Path: path, Message: msg, Timeout: timeout}
}

// errorFromBody reads {message, code, tryLater} leniently; anything else
// becomes a message naming the status.
func errorFromBody(path string, status int, data []byte) *AppError {
	e := &AppError{Path: path, Status: status}
	var body struct {
		Message  any  `json:"message"`
		Code     any  `json:"code"`
		TryLater bool `json:"tryLater"`
	}
	if json.Unmarshal(data, &body) == nil {
		if body.Message != nil {
			e.Message = fmt.Sprint(body.Message)
		}
		if body.Code != nil {
			e.Code = fmt.Sprint(body.Code)
		}
		e.TryLater = body.TryLater
	}
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	if len(e.Message) > 500 {
		e.Message = e.Message[:500] + "…"
	}
	return e
}

// call makes one call and decodes a JSON answer into out (nil: ignore the
// body). A 204 leaves out untouched.
func (c *client) call(ctx context.Context, method, path string, body, out any) error {
	status, ct, data, err := c.raw(ctx, method, path, body)
	if err != nil {
		return err
	}
	if out == nil || status == http.StatusNoContent || len(bytes.TrimSpace(data)) == 0 && status != http.StatusOK {
		return nil
	}
	if err := notJSON(path, status, ct); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return &AppError{Path: path, Status: status, Message: "malformed JSON answer: " + err.Error()}
	}
	return nil
}

// callRetry is call with the retry policy for failures that may pass.
func (c *client) callRetry(ctx context.Context, method, path string, body, out any) error {
	return c.callWith(ctx, c.retry, method, path, body, out)
}

// quick is the policy of the first call to an app: an address that does not
// answer is more often wrong than busy, so the user hears of it in seconds.
func (c *client) quick() Retry {
	return Retry{Attempts: min(c.retry.Attempts, 3), Base: min(c.retry.Base, 250*time.Millisecond), Max: min(c.retry.Max, time.Second)}
}

// callWith is call with the given retry policy.
func (c *client) callWith(ctx context.Context, policy Retry, method, path string, body, out any) error {
	return c.retrying(ctx, policy, path, func() error { return c.call(ctx, method, path, body, out) })
}

// retrying makes the call attempt until it succeeds, fails with an error
// that will not pass, or the policy's attempts are spent.
func (c *client) retrying(ctx context.Context, policy Retry, path string, attempt func() error) error {
	attempts := max(policy.Attempts, 1)
	for n := 1; ; n++ {
		err := attempt()
		var ae *AppError
		if err == nil || !errors.As(err, &ae) || !ae.Retryable() || n >= attempts || ctx.Err() != nil {
			if err != nil && n > 1 {
				err = fmt.Errorf("%w (after %d attempts)", err, n)
			}
			return err
		}
		wait := policy.delay(n)
		if ae.RetryAfter > wait {
			wait = min(ae.RetryAfter, max(policy.Max, wait)) // as asked, within the policy's bound
		}
		if c.onRetry != nil {
			c.onRetry(path, n, err, wait)
		}
		if err := c.sleep(ctx, wait); err != nil {
			return err
		}
	}
}
