package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/pagerules"
	"github.com/appkitgo/appkit/internal/secretmask"
)

// ErrStopped is returned (wrapped) by [Run] when the run stopped before its
// end: its context was cancelled (an interrupt) or [Config.TotalTimeout]
// passed ([ErrTotalTimeout]). The report then holds the results recorded
// until then, and Report.Stopped says why.
var ErrStopped = errors.New("conformance: the run stopped before its end")

// ErrTotalTimeout is the cause of a run stopped by [Config.TotalTimeout].
var ErrTotalTimeout = errors.New("the run's time bound (Config.TotalTimeout) was reached")

// Run checks the app that cfg names and returns the report. A broken app
// gives failed checks, never an error. The error is non-nil when the run
// could not start (an invalid Config: the report is empty) or stopped
// before its end (ctx cancelled, or Config.TotalTimeout passed): it then
// matches [ErrStopped] and the cause (context.Canceled, [ErrTotalTimeout]),
// and the report is partial.
func Run(ctx context.Context, cfg Config) (Report, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return Report{}, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, cfg.TotalTimeout, ErrTotalTimeout)
	defer cancel()
	target := cfg.URL
	if cfg.Handler != nil {
		srv := httptest.NewServer(cfg.Handler)
		defer srv.Close()
		target = srv.URL
	}
	r := &runner{cfg: cfg, base: target, endpoints: map[string]*endpointStats{}}
	start := time.Now()
	r.run(ctx)
	rep := r.report(time.Since(start))
	if r.stopped {
		cause := context.Cause(ctx)
		if errors.Is(cause, ErrTotalTimeout) {
			rep.Stopped = fmt.Sprintf("the run's time bound of %s was reached", cfg.TotalTimeout)
		} else {
			rep.Stopped = "interrupted: " + cause.Error()
		}
		return rep, fmt.Errorf("%w: %w", ErrStopped, cause)
	}
	return rep, nil
}

// runner holds the state of one run.
type runner struct {
	cfg       Config
	base      string
	results   []Result
	endpoints map[string]*endpointStats

	// stopped is set once the run's context is done: no result is
	// recorded after it but the checks over the answers seen until then.
	stopped bool
	closing bool   // crossChecks records its results
	current string // the stage under way, for Config.Progress

	desc      *descriptorDoc // GET / decoded, nil when it failed
	account   map[string]any // the account sent to synchronizer endpoints
	accountOK bool           // whether the account validated
	config    *protocol.ConfigResponse
	types     []string                    // syncTypes, once the config is known
	typesLeft int                         // types beyond Config.MaxTypes
	schema    map[string]pagerules.Schema // the synchronized types' fields
	rawSchema map[string]any              // the schema answer, sent back with data requests
}

// endpointStats accumulates what the run saw of one endpoint.
type endpointStats struct {
	calls, unanswered int
	jsonAnswers       int  // successful answers of JSON endpoints
	named             bool // the protocol names the endpoint's content type
	errorAnswers      int
	total, max        time.Duration
	slow              int
	provokedErrors    int // refusals of provoked requests
	// the first offence against each cross-cutting check
	noAnswer, badCT, badError, slowest string
	provokedBad                        string // a provoked request unanswered or refused without {message}
}

func (r *runner) run(ctx context.Context) {
	defer func() {
		r.stage("transport")
		r.closing = true
		r.crossChecks()
	}()
	r.stage("descriptor")
	r.checkDescriptor(ctx)
	r.checkLogo(ctx)
	if r.stopped {
		return
	}
	if r.desc == nil {
		for _, c := range Checks() {
			if !r.hasResult(c.ID) && !crossCutting[c.ID] {
				r.skip(c.ID, "", "no descriptor (see descriptor.answer)")
			}
		}
		return
	}
	for _, st := range []struct {
		name  string
		check func(context.Context)
	}{
		{"accounts", r.checkAccounts}, {"sync", r.checkSync}, {"errors", r.checkErrors},
		{"webhooks", r.checkWebhooks}, {"actions", r.checkActions},
	} {
		if r.stopped {
			return
		}
		r.stage(st.name)
		st.check(ctx)
	}
}

// stage tells Config.Progress that a stage starts.
func (r *runner) stage(name string) {
	r.current = name
	if r.cfg.Progress != nil && !r.stopped {
		r.cfg.Progress(Progress{Stage: name})
	}
}

// add records a result, unless the run has stopped (a result after the
// stop would be made of cancelled requests).
func (r *runner) add(res Result) {
	if r.stopped && !r.closing {
		return
	}
	r.results = append(r.results, res)
	if r.cfg.Progress != nil {
		r.cfg.Progress(Progress{Stage: r.current, Result: &res})
	}
}

// crossCutting are the checks evaluated over every answer of an endpoint.
var crossCutting = map[string]bool{CheckNoAnswer: true, CheckSlow: true, CheckContentType: true, CheckContentTypeOther: true, CheckErrorBody: true, CheckMistakeAnswers: true}

// answer is one response of the app (or the failure to get one).
type answer struct {
	method, path string
	status       int
	header       http.Header
	body         []byte
	err          error // no answer: timeout, connection refused, too large
	elapsed      time.Duration
	// provoked marks a request the service never sends (a client's
	// mistake, an unknown id): how it is refused is appkit's choice.
	provoked bool
}

// ok reports whether the app answered at all.
func (a answer) ok() bool { return a.err == nil }

// success reports a 2xx answer.
func (a answer) success() bool { return a.err == nil && a.status >= 200 && a.status < 300 }

// describe renders the answer for a report's "got".
func (a answer) describe() string {
	if a.err != nil {
		return "no answer: " + a.err.Error()
	}
	return fmt.Sprintf("%d %s", a.status, snippet(a.body))
}

// endpoint names the request: "POST /api/v1/synchronizer/data".
func endpoint(method, path string) string { return method + " " + path }

// post sends body as JSON.
func (r *runner) post(ctx context.Context, path string, body any) answer {
	return r.send(ctx, http.MethodPost, path, body)
}

// provoke posts a request the service never sends (a malformed body, an
// unknown type, id, field or action, a value of the wrong type): whether
// its refusal is answered, and with a {message}, is errors.mistake-answers'
// business (a warning), not transport.answers' or errors.message-body's.
func (r *runner) provoke(ctx context.Context, path string, body any) answer {
	return r.exchangeAndRecord(ctx, http.MethodPost, path, body, true)
}

// send sends a request; body is marshalled as JSON unless it is a []byte
// (sent as is) or nil (no body).
func (r *runner) send(ctx context.Context, method, path string, body any) answer {
	return r.exchangeAndRecord(ctx, method, path, body, false)
}

func (r *runner) exchangeAndRecord(ctx context.Context, method, path string, body any, provoked bool) answer {
	var raw []byte
	switch b := body.(type) {
	case nil:
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return answer{method: method, path: path, err: fmt.Errorf("encode the request: %w", err)}
		}
	}
	if ctx.Err() != nil {
		r.stopped = true
		return answer{method: method, path: path, err: context.Cause(ctx)}
	}
	a := r.exchange(ctx, method, path, raw)
	a.provoked = provoked
	if a.err != nil && ctx.Err() != nil {
		// The run stopped during the request: that says nothing of the app.
		r.stopped = true
		return a
	}
	r.record(a)
	return a
}

func (r *runner) exchange(ctx context.Context, method, path string, raw []byte) answer {
	a := answer{method: method, path: path}
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	var rd io.Reader
	if raw != nil {
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.base+path, rd)
	if err != nil {
		a.err = err
		return a
	}
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set(protocol.ProbeHeader, probeID(r.current))
	start := time.Now()
	resp, err := r.cfg.Client.Do(req)
	if err != nil {
		a.elapsed = time.Since(start)
		a.err = unwrapURLError(err, r.cfg.Timeout)
		return a
	}
	defer resp.Body.Close()
	a.status, a.header = resp.StatusCode, resp.Header
	a.body, err = io.ReadAll(io.LimitReader(resp.Body, r.cfg.MaxBody+1))
	a.elapsed = time.Since(start)
	switch {
	case err != nil:
		a.err = unwrapURLError(err, r.cfg.Timeout)
	case int64(len(a.body)) > r.cfg.MaxBody:
		a.err = fmt.Errorf("answer larger than %d bytes", r.cfg.MaxBody)
	}
	return a
}

// probeID is the probe header's value for a stage of checks (the prefix
// of their ids: "accounts", "errors", ...), "conform" before the first:
// many requests are meant to be refused, and an app's log can tell them
// from the service's requests (appkit logs a probe's 4xx at info level).
func probeID(stage string) string {
	if stage == "" {
		return "conform"
	}
	return protocol.ProbeID(stage)
}

// unwrapURLError keeps the cause of a failed call and names a timeout.
func unwrapURLError(err error, timeout time.Duration) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %s", timeout)
	}
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) && ue.Unwrap() != nil {
		return ue.Unwrap()
	}
	return err
}

// jsonEndpoints are the paths whose successful answers are JSON: true for
// those whose JSON content type the protocol names (the service's own tests
// check it), false for the others.
var jsonEndpoints = map[string]bool{
	protocol.PathDescriptor: true, protocol.PathValidate: true, protocol.PathConfig: true,
	protocol.PathSchema: true, protocol.PathData: true, protocol.PathDatalist: false,
	protocol.PathWebhooks: false, protocol.PathWebhookVerify: false, protocol.PathWebhookXform: false,
	protocol.PathOAuth1Auth: false, protocol.PathOAuth2Auth: false,
}

// optionalEndpoints are the paths an app may leave unserved: a 404 or 405
// from them says "not served", not a failure that needs a {message}.
var optionalEndpoints = map[string]bool{
	protocol.PathLogo: true, protocol.PathFilterValidate: true, protocol.PathDatalist: true,
	protocol.PathWebhooks: true, protocol.PathWebhookVerify: true, protocol.PathWebhookXform: true,
}

// notServed reports an answer that says the optional endpoint is not served.
func notServed(a answer) bool {
	return optionalEndpoints[a.path] && (a.status == http.StatusNotFound || a.status == http.StatusMethodNotAllowed)
}

// record accumulates latency and the cross-cutting observations.
func (r *runner) record(a answer) {
	key := endpoint(a.method, a.path)
	s := r.endpoints[key]
	if s == nil {
		s = &endpointStats{}
		r.endpoints[key] = s
	}
	if a.err != nil {
		s.unanswered++
		switch {
		case a.provoked:
			if s.provokedBad == "" {
				s.provokedBad = "no answer: " + a.err.Error()
			}
		case s.noAnswer == "":
			s.noAnswer = a.err.Error()
		}
		return
	}
	s.calls++
	s.total += a.elapsed
	if a.elapsed > s.max {
		s.max = a.elapsed
	}
	if a.elapsed > r.cfg.SlowAfter {
		s.slow++
		if s.slowest == "" {
			s.slowest = a.elapsed.Round(time.Millisecond).String()
		}
	}
	if named, isJSON := jsonEndpoints[a.path]; isJSON && a.success() && len(bytes.TrimSpace(a.body)) > 0 {
		s.jsonAnswers++
		s.named = named
		if !isJSONType(a.header.Get("Content-Type")) && s.badCT == "" {
			s.badCT = fmt.Sprintf("%d with content type %q", a.status, a.header.Get("Content-Type"))
		}
	}
	switch {
	case a.status < 400 || notServed(a):
	case a.provoked:
		s.provokedErrors++
		if msg, ok := errorMessage(a); !ok && s.provokedBad == "" {
			s.provokedBad = msg
		}
	default:
		s.errorAnswers++
		if msg, ok := errorMessage(a); !ok && s.badError == "" {
			s.badError = msg
		}
	}
}

// isJSONType reports whether a Content-Type header names JSON.
func isJSONType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// errorMessage checks an error answer's body: a JSON object with a
// non-empty string message. It returns the message, or what is wrong.
func errorMessage(a answer) (string, bool) {
	var body map[string]any
	if err := json.Unmarshal(a.body, &body); err != nil || body == nil {
		return fmt.Sprintf("%d with a body that is not a JSON object (content type %q): %s", a.status, a.header.Get("Content-Type"), snippet(a.body)), false
	}
	msg, ok := body["message"].(string)
	if !ok || strings.TrimSpace(msg) == "" {
		return fmt.Sprintf("%d without a string message: %s", a.status, snippet(a.body)), false
	}
	if tl, present := body["tryLater"]; present {
		if _, isBool := tl.(bool); !isBool {
			return fmt.Sprintf("%d with a tryLater that is not a boolean: %s", a.status, snippet(a.body)), false
		}
	}
	return msg, true
}

// crossChecks turns the observations of every endpoint into results.
func (r *runner) crossChecks() {
	keys := make([]string, 0, len(r.endpoints))
	for k := range r.endpoints {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		s := r.endpoints[k]
		if s.noAnswer != "" {
			r.fail(CheckNoAnswer, k, fmt.Sprintf("an answer within %s", r.cfg.Timeout), s.noAnswer)
		} else {
			r.pass(CheckNoAnswer, k)
		}
		if s.provokedBad != "" {
			r.fail(CheckMistakeAnswers, k, fmt.Sprintf(`an answer within %s, an error status with a JSON body {"message": "..."}`, r.cfg.Timeout), s.provokedBad)
		} else if s.provokedErrors > 0 {
			r.pass(CheckMistakeAnswers, k)
		}
		if s.calls == 0 {
			continue
		}
		if s.slow > 0 {
			r.fail(CheckSlow, k, "answers within "+r.cfg.SlowAfter.String(), fmt.Sprintf("%d of %d answers slower (first took %s)", s.slow, s.calls, s.slowest))
		} else {
			r.pass(CheckSlow, k)
		}
		ct := CheckContentType
		if !s.named {
			ct = CheckContentTypeOther
		}
		if s.badCT != "" {
			r.fail(ct, k, "application/json", s.badCT)
		} else if s.jsonAnswers > 0 {
			r.pass(ct, k)
		}
		if s.badError != "" {
			r.fail(CheckErrorBody, k, `an error status with a JSON body {"message": "..."}`, s.badError)
		} else if s.errorAnswers > 0 {
			r.pass(CheckErrorBody, k)
		}
	}
}

// pass records a passed check.
func (r *runner) pass(id, subject string) {
	r.add(Result{Check: mustCheck(id), Subject: subject, Status: Passed})
}

// fail records a broken check: failed or warning by its severity. The
// account's values never reach a report: they are masked as ***.
func (r *runner) fail(id, subject, expected, got string) {
	expected, got = r.redact(expected), r.redact(got)
	c := mustCheck(id)
	st := Failed
	if c.Severity == Warning {
		st = Warned
	}
	r.add(Result{Check: c, Subject: subject, Status: st, Expected: expected, Got: got})
}

// skip records a check that could not run.
func (r *runner) skip(id, subject, why string) {
	r.add(Result{Check: mustCheck(id), Subject: subject, Status: Skipped, Why: why})
}

// verdict records a check from its list of problems: passed when empty,
// else broken with the first problem (and the count of the others).
func (r *runner) verdict(id, subject string, problems []problem) {
	if len(problems) == 0 {
		r.pass(id, subject)
		return
	}
	got := problems[0].got
	if n := len(problems) - 1; n > 0 {
		got += fmt.Sprintf(" (and %d more problem", n)
		if n > 1 {
			got += "s"
		}
		got += ")"
	}
	r.fail(id, subject, problems[0].expected, got)
}

// problem is one way a rule is broken.
type problem struct{ expected, got string }

func mustCheck(id string) Check {
	c, ok := catalog[id]
	if !ok {
		panic("conformance: unknown check " + id)
	}
	return c
}

// snippet shortens a body for a report.
func snippet(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if s == "" {
		return "(empty body)"
	}
	const max = 200
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// decodeObject decodes a successful JSON answer into out; the error says
// what was wrong for a report's "got".
func decodeObject(a answer, out any) error {
	if !a.ok() {
		return errors.New(a.describe())
	}
	if !a.success() {
		return fmt.Errorf("status %s", a.describe())
	}
	dec := json.NewDecoder(bytes.NewReader(a.body))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("%d with a body that is not the expected JSON (%v): %s", a.status, err, snippet(a.body))
	}
	return nil
}

// decodeMap decodes a successful JSON answer that must be an object; the
// error says what was wrong for a report's "got" ("null" for a JSON null).
func decodeMap(a answer) (map[string]any, error) {
	var m map[string]any
	if err := decodeObject(a, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("null")
	}
	return m, nil
}

// redact masks the string values of the given and the validated account
// (tokens, passwords, refreshed tokens) in s, longest first.
func (r *runner) redact(s string) string {
	m := secretmask.New()
	for _, acct := range []map[string]any{r.cfg.Account, r.account} {
		for k, v := range acct {
			if v, ok := v.(string); ok && len(v) >= secretmask.MinLen && k != "auth" {
				m.Add(v)
			}
		}
	}
	return m.Mask(s)
}
