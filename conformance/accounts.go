package conformance

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// Values the suite sends where it needs something that cannot be valid.
const (
	unknownID     = "conformance-unknown"
	callbackURI   = "https://conformance.invalid/oauth/callback"
	webhookTarget = "https://conformance.invalid/webhook"
)

// nonce returns a random hex string of n bytes.
func nonce(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// checkLogo checks GET /logo.
func (r *runner) checkLogo(ctx context.Context) {
	a := r.send(ctx, http.MethodGet, protocol.PathLogo, nil)
	if !a.ok() {
		r.skip(CheckLogo, "", "GET /logo did not answer (see transport.answers)")
		return
	}
	mt, _, _ := mime.ParseMediaType(a.header.Get("Content-Type"))
	switch {
	case a.status == http.StatusOK && mt == "image/svg+xml" && len(a.body) > 0:
		r.pass(CheckLogo, "")
	case a.status == http.StatusNoContent:
		r.pass(CheckLogo, "")
	case a.status == http.StatusFound && a.header.Get("Location") != "":
		r.pass(CheckLogo, "")
	case a.status >= 400:
		// Without a logo, or on an error, the default logo is used.
		r.skip(CheckLogo, "", fmt.Sprintf("GET /logo answered %d: the app serves no logo, the default one is shown", a.status))
	default:
		got := fmt.Sprintf("%d with content type %q", a.status, a.header.Get("Content-Type"))
		if a.status == http.StatusFound {
			got = "302 without a Location"
		}
		r.fail(CheckLogo, "", "200 image/svg+xml, 204, or 302 with a Location", got)
	}
}

// pickAuth chooses the authentication of the run's account as appkit sync
// does: the one Config.Auth names; without a name, the only one, else
// "none" when declared, else the first that is not OAuth, else the first.
func (r *runner) pickAuth() (protocol.Authentication, bool) {
	auths := r.desc.Authentication
	if r.cfg.Auth != "" {
		for _, a := range auths {
			if a.ID == r.cfg.Auth {
				return a, true
			}
		}
		return protocol.Authentication{}, false
	}
	if len(auths) == 0 {
		return protocol.Authentication{}, false
	}
	if len(auths) == 1 {
		return auths[0], true
	}
	for _, a := range auths {
		if a.ID == protocol.AuthNone {
			return a, true
		}
	}
	for _, a := range auths {
		if a.ID != protocol.AuthOAuth1 && a.ID != protocol.AuthOAuth2 {
			return a, true
		}
	}
	return auths[0], true
}

// valueFields are the ids of the fields of au whose values an account
// needs, as appkit sync requires them: those neither optional nor a link
// or an OAuth button.
func valueFields(au protocol.Authentication) []string {
	var ids []string
	for _, f := range au.Fields {
		if !f.Optional && f.Type != "link" && f.Type != "oauth" {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// needsAccount says why au cannot be validated without a given account:
// an OAuth authentication needs its tokens, another the values of its
// fields. "" when it takes none (no fields, or only links and optional
// ones): it is validated with an empty account, as appkit sync does.
func needsAccount(au protocol.Authentication) string {
	switch {
	case au.ID == protocol.AuthOAuth1 || au.ID == protocol.AuthOAuth2:
		return fmt.Sprintf("authentication %q needs the tokens of a signed-in account", au.ID)
	case len(valueFields(au)) > 0:
		return fmt.Sprintf("authentication %q takes %s", au.ID, strings.Join(valueFields(au), ", "))
	}
	return ""
}

// checkAccounts runs /validate with the given account, a garbage one and an
// unknown authentication id, and the OAuth authorize steps.
func (r *runner) checkAccounts(ctx context.Context) {
	auth, found := r.pickAuth()
	switch {
	case !found && r.cfg.Auth == "":
		r.skip(CheckValidateAccount, "", "the descriptor declares no authentication (see descriptor.authentication)")
	case !found:
		r.skip(CheckValidateAccount, r.cfg.Auth, fmt.Sprintf("the descriptor declares no authentication %q", r.cfg.Auth))
	case len(r.cfg.Account) == 0 && needsAccount(auth) != "":
		r.skip(CheckValidateAccount, auth.ID, "no account given (--account KEY=VALUE), and "+needsAccount(auth)+": checks that need a valid account are skipped")
	default:
		fields := r.cfg.Account
		if fields == nil {
			fields = map[string]any{}
		}
		a := r.post(ctx, protocol.PathValidate, map[string]any{"id": auth.ID, "fields": fields})
		var out map[string]any
		switch err := decodeObject(a, &out); {
		case !a.ok():
			r.skip(CheckValidateAccount, auth.ID, "no answer (see transport.answers)")
		case a.status >= 400 && tryLater(a):
			r.skip(CheckValidateAccount, auth.ID, "the app cannot check the account now (tryLater): "+r.redact(a.describe()))
		case err != nil:
			r.fail(CheckValidateAccount, auth.ID, `200 {"name": "..."}`, err.Error())
		default:
			if name, _ := out["name"].(string); strings.TrimSpace(name) == "" {
				r.fail(CheckValidateAccount, auth.ID, `200 {"name": "..."}`, "200 "+snippet(a.body))
				break
			}
			r.pass(CheckValidateAccount, auth.ID)
			r.accountOK = true
			// Returned fields (refreshed tokens, ids) join the stored
			// account, as the service does.
			r.account = map[string]any{}
			for k, v := range fields {
				r.account[k] = v
			}
			for k, v := range out {
				if k != "name" {
					r.account[k] = v
				}
			}
			// The service's stored account names its authentication.
			if _, set := r.account["auth"]; !set {
				r.account["auth"] = auth.ID
			}
		}
	}
	if r.account == nil {
		r.account = r.cfg.Account
	}

	// Every authentication that takes values must refuse garbage.
	for _, au := range r.desc.Authentication {
		garbage := map[string]any{}
		switch au.ID {
		case protocol.AuthNone:
			continue
		case protocol.AuthOAuth2:
			garbage["access_token"] = "conformance-garbage-" + nonce(8)
		case protocol.AuthOAuth1:
			garbage["access_token"] = "conformance-garbage-" + nonce(8)
			garbage["access_secret"] = "conformance-garbage-" + nonce(8)
		}
		for _, f := range au.Fields {
			switch f.Type {
			case "link", "oauth":
			case "number":
				garbage[f.ID] = 918273645
			case "bool":
				garbage[f.ID] = true
			default:
				garbage[f.ID] = "conformance-garbage-" + nonce(8)
			}
		}
		if len(garbage) == 0 {
			continue // no field takes a value: nothing to garble
		}
		a := r.post(ctx, protocol.PathValidate, map[string]any{"id": au.ID, "fields": garbage})
		if a.ok() && a.status >= 400 && tryLater(a) {
			// A failure that may pass later (an upstream that garbage
			// values cannot reach) says nothing of the account.
			r.skip(CheckRejectGarbage, au.ID, "the app cannot check the account now (tryLater): "+a.describe())
			continue
		}
		r.expectStatus(CheckRejectGarbage, au.ID, a, http.StatusUnauthorized)
	}
	if !r.hasResult(CheckRejectGarbage) {
		r.skip(CheckRejectGarbage, "", "no authentication takes values")
	}

	a := r.provoke(ctx, protocol.PathValidate, map[string]any{"id": unknownID, "fields": r.cfg.Account})
	r.expectStatus(CheckRejectUnknownID, "", a, http.StatusUnauthorized)

	r.checkOAuth(ctx)
}

// expectStatus records check id as passed when a has the status.
func (r *runner) expectStatus(id, subject string, a answer, status int) {
	switch {
	case !a.ok():
		r.skip(id, subject, "no answer (see transport.answers)")
	case a.status == status:
		r.pass(id, subject)
	default:
		r.fail(id, subject, fmt.Sprintf("%d {message}", status), a.describe())
	}
}

// expectError records check id as passed when a is an error status; the
// shape of its body is errors.message-body's business, and whether it is
// 4xx is errors.client-status's.
func (r *runner) expectError(id, subject string, a answer) bool {
	switch {
	case !a.ok():
		r.skip(id, subject, "no answer (see transport.answers)")
		return false
	case a.status >= 400:
		r.pass(id, subject)
		return true
	default:
		r.fail(id, subject, "an error status (4xx) with {message}", a.describe())
		return false
	}
}

// hasResult reports whether check id has a result yet.
func (r *runner) hasResult(id string) bool {
	for _, res := range r.results {
		if res.ID == id {
			return true
		}
	}
	return false
}

// checkOAuth runs the authorize step of each OAuth authentication.
func (r *runner) checkOAuth(ctx context.Context) {
	ran := false
	for _, au := range r.desc.Authentication {
		switch au.ID {
		case protocol.AuthOAuth2:
			ran = true
			state := "conformance-" + nonce(8)
			a := r.post(ctx, protocol.PathOAuth2Auth, map[string]any{"callback_uri": callbackURI, "state": state})
			var out protocol.AuthorizeResponse
			if !a.ok() {
				r.skip(CheckOAuthAuthorize, au.ID, "no answer (see transport.answers)")
				continue
			}
			if err := decodeObject(a, &out); err != nil {
				r.fail(CheckOAuthAuthorize, au.ID, `200 {"redirect_uri": "..."}`, err.Error())
				continue
			}
			u, err := url.Parse(out.RedirectURI)
			switch {
			case err != nil || !u.IsAbs():
				r.fail(CheckOAuthAuthorize, au.ID, "an absolute redirect_uri", fmt.Sprintf("%q", out.RedirectURI))
			case !strings.Contains(out.RedirectURI, state) && !strings.Contains(out.RedirectURI, url.QueryEscape(state)):
				r.fail(CheckOAuthAuthorize, au.ID, "a redirect_uri carrying the state "+state, out.RedirectURI)
			default:
				r.pass(CheckOAuthAuthorize, au.ID)
			}
		case protocol.AuthOAuth1:
			ran = true
			a := r.post(ctx, protocol.PathOAuth1Auth, map[string]any{"callback_uri": callbackURI + "?state=conformance-" + nonce(8)})
			var out protocol.AuthorizeResponse
			if !a.ok() {
				r.skip(CheckOAuthAuthorize, au.ID, "no answer (see transport.answers)")
				continue
			}
			if err := decodeObject(a, &out); err != nil {
				r.fail(CheckOAuthAuthorize, au.ID, `200 {"redirect_uri", "token", "secret"}`, err.Error())
				continue
			}
			if u, err := url.Parse(out.RedirectURI); err != nil || !u.IsAbs() || out.Token == "" || out.Secret == "" {
				r.fail(CheckOAuthAuthorize, au.ID, `an absolute redirect_uri, a token and a secret`,
					fmt.Sprintf("redirect_uri %q, token given: %t, secret given: %t", out.RedirectURI, out.Token != "", out.Secret != ""))
				continue
			}
			r.pass(CheckOAuthAuthorize, au.ID)
		}
	}
	if !ran {
		r.skip(CheckOAuthAuthorize, "", "the app declares no OAuth authentication")
	}
}
