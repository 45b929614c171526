package apps

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// oauthTTL is how long a started OAuth set-up waits for its callback.
const oauthTTL = 15 * time.Minute

// CallbackPath is the host's OAuth callback page.
const CallbackPath = "/api/apps/oauth/callback"

// OAuthStart is the answer to StartOAuth.
type OAuthStart struct {
	// RedirectURI is where to send the user's browser (the provider's
	// consent page).
	RedirectURI string `json:"redirectUri"`
	// CallbackURI is the host's page the provider sends the user back to.
	CallbackURI string `json:"callbackUri"`
}

// OAuthSetup connects OAuth accounts: it starts the provider's consent
// and finishes it at the host's callback page, storing the account.
type OAuthSetup struct {
	*core
	reg *Registry
}

func hashState(state string) string {
	sum := sha256.Sum256([]byte(state))
	return hex.EncodeToString(sum[:])
}

// StartOAuth starts connecting an OAuth account (auth "oauth2" or "oauth",
// "" picks the app's one): the app's authorize endpoint gives the
// provider's consent URL, which carries a fresh state; the callback comes
// back to base + CallbackPath (base "" means BaseURL). accountID, when set,
// reconnects that account.
func (s *OAuthSetup) StartOAuth(ctx context.Context, appID, authID, accountID, base string) (*OAuthStart, error) {
	a, err := s.reg.App(ctx, appID)
	if err != nil {
		return nil, err
	}
	if authID == "" {
		if findAuth(a.Descriptor, protocol.AuthOAuth2) != nil {
			authID = protocol.AuthOAuth2
		} else {
			authID = protocol.AuthOAuth1
		}
	}
	if (authID != protocol.AuthOAuth2 && authID != protocol.AuthOAuth1) || findAuth(a.Descriptor, authID) == nil {
		return nil, fmt.Errorf("%w: the app has no OAuth authentication %q", ErrInvalid, authID)
	}
	if accountID != "" {
		acc, _, err := s.reg.account(ctx, accountID)
		if err != nil {
			return nil, err
		}
		if acc.AppID != a.ID {
			return nil, fmt.Errorf("%w: account %s belongs to another app", ErrInvalid, acc.ID)
		}
	}
	if base == "" {
		base = s.BaseURL()
	}
	if base == "" {
		return nil, fmt.Errorf("%w: the host does not know its own address for the callback", ErrInvalid)
	}
	callback := base + CallbackPath
	b := make([]byte, 32)
	rand.Read(b)
	state := base64.RawURLEncoding.EncodeToString(b)
	secret := map[string]any{}
	var redirect string
	if authID == protocol.AuthOAuth2 {
		var out struct {
			RedirectURI string `json:"redirect_uri"`
		}
		if err := s.call(ctx, nil, a.URL, http.MethodPost, protocol.PathOAuth2Auth, map[string]any{"callback_uri": callback, "state": state}, &out); err != nil {
			return nil, fmt.Errorf("%w: the app's authorize failed: %v", ErrInvalid, err)
		}
		redirect = out.RedirectURI
	} else {
		cb := callback + "?state=" + url.QueryEscape(state)
		var out struct {
			RedirectURI string `json:"redirect_uri"`
			Token       string `json:"token"`
			Secret      string `json:"secret"`
		}
		if err := s.call(ctx, nil, a.URL, http.MethodPost, protocol.PathOAuth1Auth, map[string]any{"callback_uri": cb}, &out); err != nil {
			return nil, fmt.Errorf("%w: the app's authorize failed: %v", ErrInvalid, err)
		}
		redirect, callback = out.RedirectURI, cb
		secret["token"], secret["secret"] = out.Token, out.Secret
	}
	if u, err := url.Parse(redirect); err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, fmt.Errorf("%w: the app's authorize answered no usable redirect_uri", ErrInvalid)
	}
	h := hashState(state)
	sealed := s.seal.seal([]byte(mustJSON(secret)), "oauth:"+h)
	if err := s.on(s.db).deleteExpiredOAuth(ctx, s.now()); err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	setup := oauthSetup{appID: a.ID, auth: authID, callback: callback, sealed: sealed, accountID: accountID, expires: ms(s.now().Add(oauthTTL))}
	if err := s.on(s.db).insertOAuth(ctx, h, setup); err != nil {
		return nil, fmt.Errorf("oauth: %w", err)
	}
	return &OAuthStart{RedirectURI: redirect, CallbackURI: callback}, nil
}

// FinishOAuth completes a set-up from the provider's redirect to the
// callback page: the state is used once, the code (or verifier) goes to the
// app's access_token endpoint, the answer is validated and stored as the
// account (a new one, or the one being reconnected).
func (s *OAuthSetup) FinishOAuth(ctx context.Context, q url.Values) (*Account, error) {
	state := q.Get("state")
	if state == "" || len(state) > 200 {
		return nil, fmt.Errorf("%w: the callback carries no state", ErrInvalid)
	}
	h := hashState(state)
	var setup oauthSetup
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		setup, err = s.on(tx).lockOAuth(ctx, h)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: unknown or already used state; start again", ErrInvalid)
		}
		if err != nil {
			return err
		}
		return s.on(tx).deleteOAuth(ctx, h)
	})
	if err != nil {
		return nil, err
	}
	appID, authID, callback, sealed, accountID := setup.appID, setup.auth, setup.callback, setup.sealed, setup.accountID
	if setup.expires < ms(s.now()) {
		return nil, fmt.Errorf("%w: the set-up expired; start again", ErrInvalid)
	}
	if e := q.Get("error"); e != "" {
		return nil, fmt.Errorf("%w: the provider answered %q", ErrInvalid, truncate(e, 200))
	}
	a, err := s.reg.App(ctx, appID)
	if err != nil {
		return nil, err
	}
	var fields map[string]any
	if authID == protocol.AuthOAuth2 {
		code := q.Get("code")
		if code == "" {
			return nil, fmt.Errorf("%w: the callback carries no code", ErrInvalid)
		}
		err = s.call(ctx, nil, a.URL, http.MethodPost, protocol.PathOAuth2Token, map[string]any{"fields": map[string]any{"callback_uri": callback}, "code": code}, &fields)
	} else {
		plain, err2 := s.seal.open(sealed, "oauth:"+h)
		if err2 != nil {
			return nil, err2
		}
		var sec map[string]string
		if err := json.Unmarshal(plain, &sec); err != nil {
			return nil, fmt.Errorf("oauth: %w", err)
		}
		verifier := q.Get("oauth_verifier")
		if verifier == "" {
			return nil, fmt.Errorf("%w: the callback carries no oauth_verifier", ErrInvalid)
		}
		err = s.call(ctx, nil, a.URL, http.MethodPost, protocol.PathOAuth1Token, map[string]any{
			"fields": map[string]any{"access_token": sec["token"], "access_secret": sec["secret"], "callback_uri": callback}, "oauth_verifier": verifier}, &fields)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: the app's access_token failed: %s", ErrInvalid, newMasker(fields, a.Descriptor).mask(err.Error()))
	}
	fields, name, err := s.reg.checkAccount(ctx, a, authID, fields)
	if err != nil {
		return nil, err
	}
	if accountID != "" {
		if err := s.reg.saveAccount(ctx, accountID, name, fields); err != nil {
			return nil, err
		}
		return s.reg.Account(ctx, accountID)
	}
	return s.reg.insertAccount(ctx, a.ID, authID, name, fields)
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
