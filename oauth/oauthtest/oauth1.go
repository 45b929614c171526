package oauthtest

import (
	"context"
	"crypto"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// OAuth1Config sets up an OAuth1Server. The zero value works (HMAC-SHA1).
type OAuth1Config struct {
	// ConsumerKey and ConsumerSecret of the one registered consumer;
	// defaults "test-consumer" and "test-consumer-secret-0123456789".
	ConsumerKey, ConsumerSecret string
	// Method is the signature method the server accepts: "HMAC-SHA1" (the
	// default), "HMAC-SHA256" or "RSA-SHA1".
	Method string
	// PublicKey verifies RSA-SHA1 signatures.
	PublicKey *rsa.PublicKey
	// UserID and UserName of the simulated user; defaults "u-2002" and
	// "Bob Example".
	UserID, UserName string
	// ExpiresIn, when positive, adds the session extension's
	// oauth_expires_in and oauth_session_handle to the access token answer.
	ExpiresIn time.Duration
	// AccessExtra are added to the access token answer (say a parameter a
	// real provider might send that the app must not store).
	AccessExtra url.Values
}

// OAuth1Server is an OAuth 1.0a provider (RFC 5849) that verifies every
// signature itself: the signature base string is rebuilt from the request
// (method, base URI, query, form body and Authorization header parameters),
// timestamps must be within five minutes, nonces are single use, request
// tokens and verifiers are single use. Refusals answer 401 with the Problem
// Reporting extension's oauth_problem.
type OAuth1Server struct {
	// URL is the base URL; RequestTokenURL, AuthorizeURL, AccessTokenURL
	// the OAuth endpoints; UserURL a signed profile endpoint ({"id","name"}).
	URL, RequestTokenURL, AuthorizeURL, AccessTokenURL, UserURL string
	// ConsumerKey and ConsumerSecret of the registered consumer.
	ConsumerKey, ConsumerSecret string
	// UserID and UserName of the simulated user.
	UserID, UserName string

	cfg OAuth1Config
	srv *httptest.Server

	mu       sync.Mutex
	requests map[string]*requestToken // by request token
	access   map[string]string        // access token -> secret
	nonces   map[string]bool

	rejected     atomic.Int64
	accessTokens atomic.Int64
}

type requestToken struct {
	secret, callback, verifier string
}

// NewOAuth1Server starts a provider; it is closed when the test ends.
func NewOAuth1Server(tb testing.TB, cfg OAuth1Config) *OAuth1Server {
	tb.Helper()
	if cfg.ConsumerKey == "" {
		cfg.ConsumerKey = "test-consumer"
	}
	if cfg.ConsumerSecret == "" {
		cfg.ConsumerSecret = "test-consumer-secret-0123456789"
	}
	if cfg.Method == "" {
		cfg.Method = "HMAC-SHA1"
	}
	if cfg.Method == "RSA-SHA1" && cfg.PublicKey == nil {
		tb.Fatal("oauthtest: RSA-SHA1 needs PublicKey")
	}
	if cfg.UserID == "" {
		cfg.UserID = "u-2002"
	}
	if cfg.UserName == "" {
		cfg.UserName = "Bob Example"
	}
	s := &OAuth1Server{cfg: cfg, ConsumerKey: cfg.ConsumerKey, ConsumerSecret: cfg.ConsumerSecret,
		UserID: cfg.UserID, UserName: cfg.UserName,
		requests: map[string]*requestToken{}, access: map[string]string{}, nonces: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /oauth/request_token", s.requestToken)
	mux.HandleFunc("GET /oauth/authorize", s.authorize)
	mux.HandleFunc("POST /oauth/access_token", s.accessToken)
	mux.HandleFunc("GET /api/me", s.me)
	s.srv = httptest.NewServer(mux)
	tb.Cleanup(s.srv.Close)
	s.URL = s.srv.URL
	s.RequestTokenURL = s.URL + "/oauth/request_token"
	s.AuthorizeURL = s.URL + "/oauth/authorize"
	s.AccessTokenURL = s.URL + "/oauth/access_token"
	s.UserURL = s.URL + "/api/me"
	return s
}

// Close shuts the provider down.
func (s *OAuth1Server) Close() { s.srv.Close() }

// Rejected counts the requests refused for their signature or protocol
// parameters.
func (s *OAuth1Server) Rejected() int { return int(s.rejected.Load()) }

// AccessTokens counts the access tokens issued.
func (s *OAuth1Server) AccessTokens() int { return int(s.accessTokens.Load()) }

// Approve plays the user at the authorization URL and returns the callback
// the provider redirects to, with oauth_token and oauth_verifier added to
// the callback's own query (its state is kept).
func (s *OAuth1Server) Approve(ctx context.Context, authorizeURL string) (*url.URL, error) {
	return follow(ctx, s.srv.Client(), authorizeURL)
}

// problemError is a refusal in the Problem Reporting extension's terms.
type problemError struct {
	status          int
	problem, advice string
}

func (e *problemError) Error() string { return e.problem + ": " + e.advice }

func refuse(problem, advice string) error {
	return &problemError{status: http.StatusUnauthorized, problem: problem, advice: advice}
}

func (s *OAuth1Server) fail(w http.ResponseWriter, err error) {
	s.rejected.Add(1)
	pe := &problemError{status: http.StatusBadRequest, problem: "parameter_rejected", advice: err.Error()}
	errors.As(err, &pe)
	w.Header().Set("Content-Type", "application/x-www-form-urlencoded")
	w.WriteHeader(pe.status)
	_, _ = io.WriteString(w, url.Values{"oauth_problem": {pe.problem}, "oauth_problem_advice": {pe.advice}}.Encode())
}

func formAnswer(w http.ResponseWriter, v url.Values) {
	w.Header().Set("Content-Type", "application/x-www-form-urlencoded")
	_, _ = io.WriteString(w, v.Encode())
}

func (s *OAuth1Server) requestToken(w http.ResponseWriter, r *http.Request) {
	p, err := s.verify(r, func(token string) (string, error) {
		if token != "" {
			return "", refuse("parameter_rejected", "oauth_token is not expected when asking for a request token")
		}
		return "", nil
	})
	if err != nil {
		s.fail(w, err)
		return
	}
	cb := p["oauth_callback"]
	if cb == "" {
		s.fail(w, &problemError{status: http.StatusBadRequest, problem: "parameter_absent", advice: "oauth_callback"})
		return
	}
	if cb != "oob" {
		if u, err := url.Parse(cb); err != nil || !u.IsAbs() {
			s.fail(w, refuse("parameter_rejected", "oauth_callback is not an absolute URL"))
			return
		}
	}
	tok, sec := "rt-"+random(12), "rs-"+random(16)
	s.mu.Lock()
	s.requests[tok] = &requestToken{secret: sec, callback: cb}
	s.mu.Unlock()
	formAnswer(w, url.Values{"oauth_token": {tok}, "oauth_token_secret": {sec}, "oauth_callback_confirmed": {"true"}})
}

func (s *OAuth1Server) authorize(w http.ResponseWriter, r *http.Request) {
	tok := r.URL.Query().Get("oauth_token")
	s.mu.Lock()
	rt, ok := s.requests[tok]
	if ok && rt.verifier == "" {
		rt.verifier = "v-" + random(10) // the user consents
	}
	var cb, verifier string
	if ok {
		cb, verifier = rt.callback, rt.verifier
	}
	s.mu.Unlock()
	if !ok {
		http.Error(w, "unknown request token", http.StatusBadRequest)
		return
	}
	if cb == "oob" {
		_, _ = io.WriteString(w, verifier)
		return
	}
	u, _ := url.Parse(cb)
	q := u.Query()
	q.Set("oauth_token", tok)
	q.Set("oauth_verifier", verifier)
	u.RawQuery = q.Encode()
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func (s *OAuth1Server) accessToken(w http.ResponseWriter, r *http.Request) {
	var rt *requestToken
	p, err := s.verify(r, func(token string) (string, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		t, ok := s.requests[token]
		if !ok {
			return "", refuse("token_rejected", "unknown or used request token")
		}
		rt = t
		return t.secret, nil
	})
	if err != nil {
		s.fail(w, err)
		return
	}
	s.mu.Lock()
	ok := s.requests[p["oauth_token"]] == rt && rt.verifier != "" && hmac.Equal([]byte(rt.verifier), []byte(p["oauth_verifier"]))
	if ok {
		delete(s.requests, p["oauth_token"]) // single use
	}
	s.mu.Unlock()
	if !ok {
		s.fail(w, refuse("verifier_invalid", "the oauth_verifier does not match the request token"))
		return
	}
	tok, sec := "at-"+random(12), "as-"+random(16)
	s.mu.Lock()
	s.access[tok] = sec
	s.mu.Unlock()
	s.accessTokens.Add(1)
	v := url.Values{"oauth_token": {tok}, "oauth_token_secret": {sec}, "user_id": {s.cfg.UserID}, "screen_name": {s.cfg.UserName}}
	if s.cfg.ExpiresIn > 0 {
		v.Set("oauth_expires_in", strconv.Itoa(int(s.cfg.ExpiresIn/time.Second)))
		v.Set("oauth_session_handle", "sh-"+random(12))
	}
	for k, vs := range s.cfg.AccessExtra {
		v[k] = append([]string(nil), vs...)
	}
	formAnswer(w, v)
}

func (s *OAuth1Server) me(w http.ResponseWriter, r *http.Request) {
	_, err := s.verify(r, func(token string) (string, error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		sec, ok := s.access[token]
		if !ok {
			return "", refuse("token_rejected", "unknown access token")
		}
		return sec, nil
	})
	if err != nil {
		s.fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": s.cfg.UserID, "name": s.cfg.UserName})
}

// maxSkew is how far oauth_timestamp may be from the server's clock.
const maxSkew = 5 * time.Minute

// verify checks the request's OAuth 1 signature (RFC 5849 section 3.2).
// secretOf returns the token secret of oauth_token. It returns the protocol
// parameters.
func (s *OAuth1Server) verify(r *http.Request, secretOf func(token string) (string, error)) (map[string]string, error) {
	var pairs [][2]string // every parameter of the signature base
	oauth := map[string]string{}
	add := func(k, v string) {
		if strings.HasPrefix(k, "oauth_") {
			if _, dup := oauth[k]; dup {
				return // RFC 5849 3.1: a protocol parameter appears once
			}
			oauth[k] = v
		}
		if k != "oauth_signature" {
			pairs = append(pairs, [2]string{k, v})
		}
	}
	if h := r.Header.Get("Authorization"); h != "" {
		hp, err := parseAuthorization(h)
		if err != nil {
			return nil, refuse("parameter_rejected", err.Error())
		}
		for _, kv := range hp {
			if kv[0] != "realm" {
				add(kv[0], kv[1])
			}
		}
	}
	for k, vs := range r.URL.Query() {
		for _, v := range vs {
			add(k, v)
		}
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		b, err := io.ReadAll(io.LimitReader(r.Body, 64<<10))
		if err != nil {
			return nil, refuse("parameter_rejected", "unreadable body")
		}
		form, err := url.ParseQuery(string(b))
		if err != nil {
			return nil, refuse("parameter_rejected", "malformed form body")
		}
		for k, vs := range form {
			for _, v := range vs {
				add(k, v)
			}
		}
	}
	for _, k := range []string{"oauth_consumer_key", "oauth_signature_method", "oauth_signature", "oauth_timestamp", "oauth_nonce"} {
		if oauth[k] == "" {
			return nil, &problemError{status: http.StatusBadRequest, problem: "parameter_absent", advice: k}
		}
	}
	if v, ok := oauth["oauth_version"]; ok && v != "1.0" {
		return nil, refuse("version_rejected", "oauth_version must be 1.0")
	}
	if oauth["oauth_consumer_key"] != s.cfg.ConsumerKey {
		return nil, refuse("consumer_key_unknown", "unknown consumer")
	}
	if oauth["oauth_signature_method"] != s.cfg.Method {
		return nil, refuse("signature_method_rejected", "this provider accepts "+s.cfg.Method)
	}
	ts, err := strconv.ParseInt(oauth["oauth_timestamp"], 10, 64)
	if err != nil || time.Since(time.Unix(ts, 0)).Abs() > maxSkew {
		return nil, refuse("timestamp_refused", "oauth_timestamp is not within five minutes of now")
	}
	tokenSecret, err := secretOf(oauth["oauth_token"])
	if err != nil {
		return nil, err
	}
	base := signatureBase(r.Method, "http://"+strings.ToLower(r.Host)+r.URL.EscapedPath(), pairs)
	if !s.signatureOK(base, oauth["oauth_signature"], tokenSecret) {
		return nil, refuse("signature_invalid", "the signature does not match the request")
	}
	nonce := oauth["oauth_timestamp"] + "\x00" + oauth["oauth_nonce"] + "\x00" + oauth["oauth_token"]
	s.mu.Lock()
	used := s.nonces[nonce]
	s.nonces[nonce] = true
	s.mu.Unlock()
	if used {
		return nil, refuse("nonce_used", "oauth_nonce was already used")
	}
	return oauth, nil
}

func (s *OAuth1Server) signatureOK(base, signature, tokenSecret string) bool {
	sig, err := base64.StdEncoding.DecodeString(signature)
	if err != nil {
		return false
	}
	key := encode(s.cfg.ConsumerSecret) + "&" + encode(tokenSecret)
	var h func() hash.Hash
	switch s.cfg.Method {
	case "HMAC-SHA1":
		h = sha1.New
	case "HMAC-SHA256":
		h = sha256.New
	case "RSA-SHA1":
		d := sha1.Sum([]byte(base))
		return rsa.VerifyPKCS1v15(s.cfg.PublicKey, crypto.SHA1, d[:], sig) == nil
	default:
		return false
	}
	m := hmac.New(h, []byte(key))
	m.Write([]byte(base))
	return hmac.Equal(m.Sum(nil), sig)
}

// signatureBase builds the signature base string (RFC 5849 3.4.1): the
// method, the base string URI and the normalized parameters, each encoded.
func signatureBase(method, baseURI string, pairs [][2]string) string {
	enc := make([]string, len(pairs))
	type kv struct{ k, v string }
	sorted := make([]kv, len(pairs))
	for i, p := range pairs {
		sorted[i] = kv{encode(p[0]), encode(p[1])}
	}
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].k != sorted[j].k {
			return sorted[i].k < sorted[j].k
		}
		return sorted[i].v < sorted[j].v
	})
	for i, p := range sorted {
		enc[i] = p.k + "=" + p.v
	}
	return strings.ToUpper(method) + "&" + encode(baseURI) + "&" + encode(strings.Join(enc, "&"))
}

// encode is RFC 5849 3.6 percent-encoding: everything but the RFC 3986
// unreserved characters, with upper-case hex.
func encode(s string) string {
	const hexdigits = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hexdigits[c>>4])
		b.WriteByte(hexdigits[c&15])
	}
	return b.String()
}

// parseAuthorization reads an "OAuth" Authorization header (RFC 5849
// 3.5.1): comma-separated name="value" pairs, percent-encoded.
func parseAuthorization(h string) ([][2]string, error) {
	const prefix = "oauth "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return nil, errors.New("the Authorization scheme is not OAuth")
	}
	if len(h) > 8<<10 {
		return nil, errors.New("the Authorization header is too long")
	}
	var out [][2]string
	for part := range strings.SplitSeq(h[len(prefix):], ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok || len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
			return nil, errors.New("malformed Authorization parameter")
		}
		name, err1 := url.PathUnescape(strings.TrimSpace(k))
		value, err2 := url.PathUnescape(v[1 : len(v)-1])
		if err1 != nil || err2 != nil || name == "" {
			return nil, errors.New("malformed percent-encoding in the Authorization header")
		}
		out = append(out, [2]string{name, value})
	}
	return out, nil
}

func random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
