package appkittest

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/appkitgo/appkit/internal/secretmask"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"
)

// recordFlag switches Record from replaying to recording.
var recordFlag = flag.Bool("appkit.record", false, "appkittest: record the upstream exchanges of Record again, into testdata/, instead of replaying them")

// Recording reports whether the test binary runs with -appkit.record: a
// test then starts the upstream (a stand-in it serves, or the real API)
// that Record records.
func Recording() bool { return *recordFlag }

// Masked replaces every secret in a recording.
const Masked = "***"

// RecordOption configures [Record].
type RecordOption func(*recordConfig)

type recordConfig struct {
	secrets   []string
	transport http.RoundTripper
	name      string
}

// RecordSecrets names values (tokens, passwords, keys) that must never
// be written: wherever they appear in a URL, a header or a body, in any
// spelling (plain, query- or path-escaped, JSON-escaped), the recording
// holds [Masked]; a value shorter than 4 bytes only where it is a whole
// value (a header's value, quoted, a query or form value).
func RecordSecrets(values ...string) RecordOption {
	return func(c *recordConfig) {
		for _, v := range values {
			if v != "" {
				c.secrets = append(c.secrets, v)
			}
		}
	}
}

// RecordTransport is the transport that reaches the upstream while
// recording (a stand-in's srv.Client().Transport); the default is
// http.DefaultTransport.
func RecordTransport(rt http.RoundTripper) RecordOption {
	return func(c *recordConfig) { c.transport = rt }
}

// RecordName names the recording testdata/<name>.yaml instead of the
// test's name.
func RecordName(name string) RecordOption { return func(c *recordConfig) { c.name = name } }

// Record returns an *http.Client for a test's upstream calls (give it to
// the app's upstream.Client as HTTPClient). By default it replays the
// exchanges recorded in testdata/<TestName>.yaml, offline: a request that
// has no recording fails the test, naming the request and how to record
// it. With -appkit.record (go test ./pkg -run TestX -appkit.record) it
// sends the requests through RecordTransport, and writes the file again
// when the test ends.
//
// Recordings are made with gopkg.in/dnaeon/go-vcr.v4 (its YAML
// cassettes). Before a recording is written, secrets are scrubbed: the
// values of Authorization, Cookie, Set-Cookie and every header whose name
// says token, key, secret, signature, session or auth; query parameters
// and JSON or form body fields named so (access_token, client_secret,
// api_key, password, ...); and every value given with [RecordSecrets],
// wherever it appears. A request matches a recording by method, path,
// query and body, all scrubbed the same way, so a replay with another
// token, or against another host or port (a stand-in's random one),
// finds it. Identical requests replay their recordings in order: a 502
// then a 200 of the same URL replay as they happened.
//
// The upstream's origin (scheme://host:port of each recorded request, a
// stand-in's random port among them) is written as
// http://recorded-origin.invalid, in the URLs, headers and bodies; a
// replay writes the live request's origin in its place. So absolute URLs
// an upstream answers (a Link header's next page, as GitHub's) lead back
// to the replaying client's upstream, and a stand-in's port never shows in
// the file's diff when it is recorded again.
func Record(t testing.TB, opts ...RecordOption) *http.Client {
	t.Helper()
	cfg := recordConfig{transport: http.DefaultTransport, name: t.Name()}
	for _, o := range opts {
		o(&cfg)
	}
	s := newScrubber(cfg.secrets)
	name := filepath.Join("testdata", filepath.FromSlash(strings.NewReplacer(" ", "_", ":", "_").Replace(cfg.name)))
	mode := recorder.ModeReplayOnly
	if Recording() {
		mode = recorder.ModeRecordOnly
	}
	rec, err := recorder.New(name,
		recorder.WithMode(mode),
		recorder.WithRealTransport(cfg.transport),
		recorder.WithSkipRequestLatency(true),
		recorder.WithMatcher(s.match),
		recorder.WithHook(s.scrubInteraction, recorder.BeforeSaveHook),
	)
	if errors.Is(err, cassette.ErrCassetteNotFound) {
		t.Fatalf("appkittest: no recording %s.yaml: record it with go test -run '^%s$' -appkit.record (against a stand-in or the real upstream)", name, strings.Split(t.Name(), "/")[0])
	}
	if err != nil {
		t.Fatalf("appkittest: recording %s.yaml: %v", name, err)
	}
	t.Cleanup(func() {
		if err := rec.Stop(); err != nil {
			t.Errorf("appkittest: writing the recording %s.yaml: %v", name, err)
		}
	})
	return &http.Client{Transport: &replayer{t: t, rec: rec, file: name + ".yaml", s: s}}
}

// replayer turns a request without a recording into a test failure that
// says which one and how to record it.
type replayer struct {
	t    testing.TB
	rec  *recorder.Recorder
	file string
	s    *scrubber
	once sync.Once
}

func (r *replayer) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.rec.RoundTrip(req)
	if errors.Is(err, cassette.ErrInteractionNotFound) {
		what := req.Method + " " + r.s.scrub(req.URL.RequestURI())
		r.once.Do(func() {
			r.t.Errorf("appkittest: no recorded answer for %s in %s (or all of its recordings were replayed already); record again with -appkit.record", what, r.file)
		})
		return nil, fmt.Errorf("appkittest: no recorded answer for %s", what)
	}
	if resp != nil && !Recording() {
		// The answer is to this request, not to the recorded one (another
		// host and port): a relative Link header resolves against it, and
		// the recorded origin becomes this request's.
		resp.Request = req
		if err := withOrigin(resp, req.URL.Scheme+"://"+req.URL.Host); err != nil {
			return nil, err
		}
	}
	return resp, err
}

// recordedOrigin stands in a recording for the origin of the upstream it
// was recorded from.
const recordedOrigin = "http://recorded-origin.invalid"

// withOrigin writes origin where a replayed answer holds recordedOrigin:
// in its headers and its body.
func withOrigin(resp *http.Response, origin string) error {
	for _, vs := range resp.Header {
		for i, v := range vs {
			vs[i] = strings.ReplaceAll(v, recordedOrigin, origin)
		}
	}
	if resp.Body == nil || resp.Body == http.NoBody {
		return nil
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return fmt.Errorf("appkittest: reading a recorded answer: %w", err)
	}
	if bytes.Contains(body, []byte(recordedOrigin)) {
		body = bytes.ReplaceAll(body, []byte(recordedOrigin), []byte(origin))
		resp.ContentLength = int64(len(body))
		if resp.Header.Get("Content-Length") != "" {
			resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		}
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return nil
}

// placeOrigin writes recordedOrigin where an interaction about to be
// written holds the upstream's origin: in the request's URL and Host, and
// in both headers and the answer's body.
func placeOrigin(i *cassette.Interaction, origin string) {
	req, resp := &i.Request, &i.Response
	req.URL = strings.ReplaceAll(req.URL, origin, recordedOrigin)
	if host := strings.TrimPrefix(origin, originScheme(origin)); req.Host == host {
		req.Host = strings.TrimPrefix(recordedOrigin, "http://")
	}
	for _, h := range []http.Header{req.Headers, resp.Headers} {
		for _, vs := range h {
			for j, v := range vs {
				vs[j] = strings.ReplaceAll(v, origin, recordedOrigin)
			}
		}
	}
	resp.Body = strings.ReplaceAll(resp.Body, origin, recordedOrigin)
}

// originScheme is the "scheme://" an origin starts with.
func originScheme(origin string) string {
	scheme, _, _ := strings.Cut(origin, "://")
	return scheme + "://"
}

// originOf is the scheme://host of a recorded request's URL, or "".
func originOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// secretName matches the names of headers, query parameters and body
// fields whose values are credentials.
var secretName = regexp.MustCompile(`(?i)token|secret|passw|api[-_]?key|^key$|[-_]key$|signature|^sig$|session|cookie|authorization|^auth|^code$|verifier`)

// jsonSecretName matches the names of the JSON fields whose string values
// are credentials (narrower than secretName: a recording's data keeps
// its "key" and "code" fields).
var jsonSecretName = regexp.MustCompile(`(?i)^[a-z_\-]*(?:token|secret|password|api_?key|signature|verifier)[a-z_\-]*$`)

// scrubber masks the secrets of a recording with internal/secretmask.
type scrubber struct{ m *secretmask.Masker }

// newScrubber is the scrubber of secrets.
func newScrubber(secrets []string) *scrubber {
	return &scrubber{m: secretmask.NewWith(secretmask.Options{Mask: Masked, Names: jsonSecretName.MatchString}, secrets...)}
}

// scrub masks the known secrets in text, in every spelling.
func (s *scrubber) scrub(text string) string { return s.m.Mask(text) }

// scrubURL masks secret query parameters and known secrets.
func (s *scrubber) scrubURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return s.scrub(raw)
	}
	u.RawQuery = s.scrubQuery(u.RawQuery)
	u.User = nil
	return s.scrub(u.String())
}

func (s *scrubber) scrubQuery(raw string) string {
	if raw == "" {
		return ""
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return s.scrub(raw)
	}
	for k, vs := range q {
		if secretName.MatchString(k) {
			for i := range vs {
				vs[i] = Masked
			}
		}
	}
	return q.Encode()
}

// scrubBody masks secret fields of a JSON or form body and known secrets.
func (s *scrubber) scrubBody(body string, contentType string) string {
	if body == "" {
		return ""
	}
	if strings.HasPrefix(contentType, "application/x-www-form-urlencoded") {
		body = s.scrubQuery(body)
	} else {
		body = string(s.m.Fields([]byte(body)))
	}
	return s.scrub(body)
}

// scrubValues masks headers or form values: whole where the name is a
// secret's, else the known secrets in them.
func (s *scrubber) scrubValues(h map[string][]string) {
	for k, vs := range h {
		for i := range vs {
			if secretName.MatchString(k) {
				vs[i] = Masked
			} else {
				vs[i] = s.scrub(vs[i])
			}
		}
	}
}

// scrubInteraction masks an interaction before it is written.
func (s *scrubber) scrubInteraction(i *cassette.Interaction) error {
	req, resp := &i.Request, &i.Response
	if origin := originOf(req.URL); origin != "" {
		placeOrigin(i, origin)
	}
	req.Body = s.scrubBody(req.Body, req.Headers.Get("Content-Type"))
	req.ContentLength = int64(len(req.Body))
	req.URL = s.scrubURL(req.URL)
	req.RequestURI = s.scrubURL(req.RequestURI)
	req.Host = s.scrub(req.Host)
	s.scrubValues(req.Headers)
	s.scrubValues(req.Form)
	resp.Body = s.scrubBody(resp.Body, resp.Headers.Get("Content-Type"))
	if resp.ContentLength >= 0 {
		resp.ContentLength = int64(len(resp.Body))
	}
	if cl := resp.Headers.Get("Content-Length"); cl != "" {
		resp.Headers.Set("Content-Length", fmt.Sprint(len(resp.Body)))
	}
	s.scrubValues(resp.Headers)
	resp.Duration = 0
	return nil
}

// match compares a live request with a recorded one: method, path, query
// and body, scrubbed alike; the host and the headers are not compared.
func (s *scrubber) match(r *http.Request, rec cassette.Request) bool {
	if r.Method != rec.Method {
		return false
	}
	ru, err := url.Parse(rec.URL)
	if err != nil {
		return false
	}
	live := *r.URL
	live.RawQuery = s.scrubQuery(live.RawQuery)
	if s.scrub(live.EscapedPath()) != ru.EscapedPath() || !sameQuery(live.RawQuery, ru.RawQuery) {
		return false
	}
	var body []byte
	if r.Body != nil && r.Body != http.NoBody {
		body, err = io.ReadAll(r.Body)
		if err != nil {
			return false
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	return s.scrubBody(string(body), r.Header.Get("Content-Type")) == rec.Body
}

// sameQuery compares two queries as sets of parameters, known secrets
// masked.
func sameQuery(a, b string) bool {
	qa, err1 := url.ParseQuery(a)
	qb, err2 := url.ParseQuery(b)
	if err1 != nil || err2 != nil || len(qa) != len(qb) {
		return a == b
	}
	for k, va := range qa {
		if !slices.Equal(va, qb[k]) {
			return false
		}
	}
	return true
}
