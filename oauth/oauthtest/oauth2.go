// Package oauthtest runs OAuth providers in process, on httptest servers,
// for tests of apps and of the oauth package: a real OAuth 2 authorization
// server (github.com/go-oauth2/oauth2/v4) and an OAuth 1.0a provider that
// verifies RFC 5849 signatures (HMAC-SHA1, HMAC-SHA256, RSA-SHA1). Both
// simulate the user's consent with Approve, count the calls that tests
// assert on, and serve a small protected API (a profile and a paged list of
// items) so that data calls with the issued tokens can be checked.
package oauthtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goauth "github.com/go-oauth2/oauth2/v4"
	oerrors "github.com/go-oauth2/oauth2/v4/errors"
	"github.com/go-oauth2/oauth2/v4/generates"
	"github.com/go-oauth2/oauth2/v4/manage"
	"github.com/go-oauth2/oauth2/v4/models"
	"github.com/go-oauth2/oauth2/v4/server"
)

// OAuth2Config sets up an OAuth2Server. The zero value works.
type OAuth2Config struct {
	// ClientID and ClientSecret of the one registered client; defaults
	// "test-client" and "test-client-secret-0123456789".
	ClientID, ClientSecret string
	// CallbackHost, when set, is the only host the client may redirect to
	// (go-oauth2 checks the redirect_uri host ends with it).
	CallbackHost string
	// AccessTokenExp is the lifetime of access tokens; default one hour.
	AccessTokenExp time.Duration
	// KeepRefreshToken stops the rotation of refresh tokens (by default a
	// refresh answers a new refresh token and revokes the old one).
	KeepRefreshToken bool
	// ForcePKCE refuses authorizations without a code challenge.
	ForcePKCE bool
	// UserID and UserName are the simulated user; defaults "u-1001" and
	// "Alice Example".
	UserID, UserName string
	// Items is the number of items of GET /api/items; default 5.
	Items int
	// TokenDelay delays every answer of the token endpoint (to test
	// timeouts); the delay ends early when the request is cancelled.
	TokenDelay time.Duration
}

// OAuth2Server is an OAuth 2 authorization server with a protected API.
type OAuth2Server struct {
	// URL is the server's base URL; AuthURL, TokenURL the OAuth endpoints;
	// UserURL the profile endpoint (GET, bearer token: {"id","name"});
	// ItemsURL the paged list (GET ?page=N, bearer token: {"items":[{"id",
	// "title"}],"next":N or 0}).
	URL, AuthURL, TokenURL, UserURL, ItemsURL string
	// ClientID and ClientSecret of the registered client.
	ClientID, ClientSecret string
	// UserID and UserName of the simulated user.
	UserID, UserName string

	cfg       OAuth2Config
	srv       *httptest.Server
	oauth     *server.Server
	tokens    *tokenStore
	exchanges atomic.Int64
	refreshes atomic.Int64
	apiCalls  atomic.Int64
}

// NewOAuth2Server starts a server; it is closed when the test ends.
func NewOAuth2Server(tb testing.TB, cfg OAuth2Config) *OAuth2Server {
	tb.Helper()
	s := newOAuth2Server(cfg)
	tb.Cleanup(s.Close)
	return s
}

func newOAuth2Server(cfg OAuth2Config) *OAuth2Server {
	if cfg.ClientID == "" {
		cfg.ClientID = "test-client"
	}
	if cfg.ClientSecret == "" {
		cfg.ClientSecret = "test-client-secret-0123456789"
	}
	if cfg.AccessTokenExp == 0 {
		cfg.AccessTokenExp = time.Hour
	}
	if cfg.UserID == "" {
		cfg.UserID = "u-1001"
	}
	if cfg.UserName == "" {
		cfg.UserName = "Alice Example"
	}
	if cfg.Items == 0 {
		cfg.Items = 5
	}
	s := &OAuth2Server{cfg: cfg, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
		UserID: cfg.UserID, UserName: cfg.UserName, tokens: newTokenStore()}

	m := manage.NewManager()
	m.MapAuthorizeGenerate(generates.NewAuthorizeGenerate())
	m.MapAccessGenerate(generates.NewAccessGenerate())
	m.MapTokenStorage(s.tokens)
	domain := ""
	if cfg.CallbackHost != "" {
		domain = "https://" + cfg.CallbackHost
	}
	m.MapClientStorage(clientStore{cfg.ClientID: &models.Client{ID: cfg.ClientID, Secret: cfg.ClientSecret, Domain: domain}})
	m.SetAuthorizeCodeTokenCfg(&manage.Config{AccessTokenExp: cfg.AccessTokenExp, RefreshTokenExp: 30 * 24 * time.Hour, IsGenerateRefresh: true})
	m.SetRefreshTokenCfg(&manage.RefreshingConfig{
		AccessTokenExp:     cfg.AccessTokenExp,
		IsGenerateRefresh:  !cfg.KeepRefreshToken,
		IsRemoveAccess:     true,
		IsRemoveRefreshing: !cfg.KeepRefreshToken,
	})

	scfg := server.NewConfig()
	scfg.AllowedResponseTypes = []goauth.ResponseType{goauth.Code}
	scfg.AllowedGrantTypes = []goauth.GrantType{goauth.AuthorizationCode, goauth.Refreshing}
	scfg.ForcePKCE = cfg.ForcePKCE
	srv := server.NewServer(scfg, m)
	// Client authentication by HTTP Basic or form parameters (RFC 6749 2.3.1).
	srv.ClientInfoHandler = func(r *http.Request) (string, string, error) {
		if id, secret, ok := r.BasicAuth(); ok {
			id, _ = url.QueryUnescape(id)
			secret, _ = url.QueryUnescape(secret)
			return id, secret, nil
		}
		return server.ClientFormHandler(r)
	}
	// Simulated consent: the user is signed in and approves.
	srv.UserAuthorizationHandler = func(http.ResponseWriter, *http.Request) (string, error) {
		return cfg.UserID, nil
	}
	// Token errors as RFC 6749 5.2 has them: 400, except invalid_client
	// (401); a redirect_uri that is not registered is an invalid_grant.
	srv.InternalErrorHandler = func(err error) *oerrors.Response {
		if errors.Is(err, oerrors.ErrInvalidRedirectURI) {
			return &oerrors.Response{Error: oerrors.ErrInvalidGrant, Description: "redirect_uri is not registered for this client", StatusCode: http.StatusBadRequest}
		}
		return nil
	}
	srv.ResponseErrorHandler = func(re *oerrors.Response) {
		if re.StatusCode == http.StatusUnauthorized && !errors.Is(re.Error, oerrors.ErrInvalidClient) {
			re.StatusCode = http.StatusBadRequest
		}
	}
	// An unregistered redirect_uri is refused on the page, never redirected to.
	srv.PreRedirectErrorHandler = func(w http.ResponseWriter, req *server.AuthorizeRequest, err error) error {
		if req == nil {
			return err // a malformed request: answered on the page
		}
		if errors.Is(err, oerrors.ErrInvalidRedirectURI) {
			http.Error(w, "invalid redirect_uri", http.StatusBadRequest)
			return nil
		}
		data, _, _ := srv.GetErrorData(err)
		uri, uerr := srv.GetRedirectURI(req, data)
		if uerr != nil {
			return uerr
		}
		w.Header().Set("Location", uri)
		w.WriteHeader(http.StatusFound)
		return nil
	}
	s.oauth = srv

	mux := http.NewServeMux()
	mux.HandleFunc("GET /oauth/authorize", s.authorize)
	mux.HandleFunc("POST /oauth/token", s.token)
	mux.HandleFunc("GET /api/me", s.me)
	mux.HandleFunc("GET /api/items", s.items)
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	s.AuthURL = s.URL + "/oauth/authorize"
	s.TokenURL = s.URL + "/oauth/token"
	s.UserURL = s.URL + "/api/me"
	s.ItemsURL = s.URL + "/api/items"
	return s
}

// Close shuts the server down: later calls find no provider.
func (s *OAuth2Server) Close() { s.srv.Close() }

// Client returns a client for the server (plain HTTP on loopback).
func (s *OAuth2Server) Client() *http.Client { return s.srv.Client() }

// Exchanges counts the authorization_code grants asked, Refreshes the
// refresh_token grants, APICalls the calls of /api/*.
func (s *OAuth2Server) Exchanges() int { return int(s.exchanges.Load()) }

// Refreshes counts the refresh_token grants asked of the token endpoint.
func (s *OAuth2Server) Refreshes() int { return int(s.refreshes.Load()) }

// APICalls counts the calls of the protected API, successful or not.
func (s *OAuth2Server) APICalls() int { return int(s.apiCalls.Load()) }

// RevokeRefreshToken revokes a refresh token (and its access token).
func (s *OAuth2Server) RevokeRefreshToken(refresh string) {
	s.tokens.revokeRefresh(refresh)
}

// Approve plays the user at the authorization URL: it opens it, consents,
// and returns where the provider sends the browser back (the callback with
// code and state, or with error and error_description).
func (s *OAuth2Server) Approve(ctx context.Context, authorizeURL string) (*url.URL, error) {
	return follow(ctx, s.srv.Client(), authorizeURL)
}

// follow opens u without following the redirect and returns its Location.
func follow(ctx context.Context, c *http.Client, u string) (*url.URL, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	cc := *c
	cc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := cc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusFound && resp.StatusCode != http.StatusSeeOther {
		var body [512]byte
		n, _ := resp.Body.Read(body[:])
		return nil, fmt.Errorf("authorization answered %d: %s", resp.StatusCode, body[:n])
	}
	return url.Parse(resp.Header.Get("Location"))
}

func (s *OAuth2Server) authorize(w http.ResponseWriter, r *http.Request) {
	if err := s.oauth.HandleAuthorizeRequest(w, r); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
	}
}

func (s *OAuth2Server) token(w http.ResponseWriter, r *http.Request) {
	gt := r.PostFormValue("grant_type") // reads the body: the context now ends when the client leaves
	if d := s.cfg.TokenDelay; d > 0 {
		select {
		case <-time.After(d):
		case <-r.Context().Done():
			return
		}
	}
	switch gt {
	case string(goauth.AuthorizationCode):
		s.exchanges.Add(1)
	case string(goauth.Refreshing):
		s.refreshes.Add(1)
	}
	_ = s.oauth.HandleTokenRequest(w, r)
}

func (s *OAuth2Server) bearer(w http.ResponseWriter, r *http.Request) bool {
	s.apiCalls.Add(1)
	if _, err := s.oauth.ValidationBearerToken(r); err != nil {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_token", "error_description": err.Error()})
		return false
	}
	return true
}

func (s *OAuth2Server) me(w http.ResponseWriter, r *http.Request) {
	if s.bearer(w, r) {
		writeJSON(w, http.StatusOK, map[string]string{"id": s.cfg.UserID, "name": s.cfg.UserName})
	}
}

// itemsPage is the page size of /api/items.
const itemsPage = 2

func (s *OAuth2Server) items(w http.ResponseWriter, r *http.Request) {
	if !s.bearer(w, r) {
		return
	}
	page, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	type item struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	out := struct {
		Items []item `json:"items"`
		Next  int    `json:"next"`
	}{Items: []item{}}
	for i := (page-1)*itemsPage + 1; i <= page*itemsPage && i <= s.cfg.Items; i++ {
		out.Items = append(out.Items, item{ID: "item-" + strconv.Itoa(i), Title: "Item " + strconv.Itoa(i)})
	}
	if page*itemsPage < s.cfg.Items {
		out.Next = page + 1
	}
	writeJSON(w, http.StatusOK, out)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// clientStore is the one registered client.
type clientStore map[string]*models.Client

func (c clientStore) GetByID(_ context.Context, id string) (goauth.ClientInfo, error) {
	if cl, ok := c[id]; ok {
		return cl, nil
	}
	return nil, oerrors.ErrInvalidClient
}

// tokenStore keeps tokens in memory, as copies (go-oauth2 changes the token
// it loads before storing it again).
type tokenStore struct {
	mu      sync.Mutex
	code    map[string]models.Token
	access  map[string]models.Token
	refresh map[string]models.Token
}

func newTokenStore() *tokenStore {
	return &tokenStore{code: map[string]models.Token{}, access: map[string]models.Token{}, refresh: map[string]models.Token{}}
}

func (t *tokenStore) Create(_ context.Context, info goauth.TokenInfo) error {
	tok, ok := info.(*models.Token)
	if !ok {
		return errors.New("oauthtest: unexpected token type")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if c := tok.GetCode(); c != "" {
		t.code[c] = *tok
		return nil
	}
	t.access[tok.GetAccess()] = *tok
	if r := tok.GetRefresh(); r != "" {
		t.refresh[r] = *tok
	}
	return nil
}

func (t *tokenStore) RemoveByCode(_ context.Context, code string) error {
	return t.remove(t.code, code)
}

func (t *tokenStore) RemoveByAccess(_ context.Context, access string) error {
	return t.remove(t.access, access)
}

func (t *tokenStore) RemoveByRefresh(_ context.Context, refresh string) error {
	return t.remove(t.refresh, refresh)
}

func (t *tokenStore) remove(m map[string]models.Token, key string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(m, key)
	return nil
}

func (t *tokenStore) get(m map[string]models.Token, key string) (goauth.TokenInfo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tok, ok := m[key]
	if !ok {
		return nil, nil
	}
	return &tok, nil
}

func (t *tokenStore) GetByCode(_ context.Context, code string) (goauth.TokenInfo, error) {
	return t.get(t.code, code)
}

func (t *tokenStore) GetByAccess(_ context.Context, access string) (goauth.TokenInfo, error) {
	return t.get(t.access, access)
}

func (t *tokenStore) GetByRefresh(_ context.Context, refresh string) (goauth.TokenInfo, error) {
	return t.get(t.refresh, refresh)
}

func (t *tokenStore) revokeRefresh(refresh string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tok, ok := t.refresh[refresh]; ok {
		delete(t.access, tok.GetAccess())
	}
	delete(t.refresh, refresh)
}
