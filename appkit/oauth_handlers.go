package appkit

import (
	"net/http"

	"github.com/labstack/echo/v5"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/oauth"
)

// oauthFailure answers a failing OAuth step: 401 with what the provider said
// (the oauth package keeps secrets out of its errors), unless the failure is
// a typed one such as a 400 for a malformed request.
func oauthFailure(err error) error { return asStatus(err, http.StatusUnauthorized) }

// oauthValidateFailure answers a failing OAuth validation: a provider that is
// down, slow or rate limited, or an account lookup that timed out or could
// not connect (oauth.IsTemporary), says nothing about the account, so the
// service is told to try later (503 tryLater) instead of marking the account
// invalid; any other failure is an invalid account (401).
func oauthValidateFailure(err error) error {
	if oauth.IsTemporary(err) {
		return TryLater(err)
	}
	return asStatus(err, http.StatusUnauthorized)
}

func (s *server) oauth2Authorize(c *echo.Context, a *Auth) error {
	return endpoint(s, c, nil, func(in *protocol.OAuth2AuthorizeRequest, _ Request) error {
		uri, err := a.OAuth2.Authorize(c.Request().Context(), in.CallbackURI, in.State)
		if err != nil {
			return oauthFailure(err)
		}
		return writeJSON(c.Response(), http.StatusOK, protocol.AuthorizeResponse{RedirectURI: uri})
	})
}

func (s *server) oauth2AccessToken(c *echo.Context, a *Auth) error {
	read := func(in *protocol.OAuth2AccessTokenRequest) envelope { return envelope{secrets: []string{in.Code}} }
	return endpoint(s, c, read, func(in *protocol.OAuth2AccessTokenRequest, _ Request) error {
		out, err := a.OAuth2.Exchange(c.Request().Context(), in.Fields.CallbackURI, in.Code)
		if err != nil {
			return oauthFailure(err)
		}
		return writeJSON(c.Response(), http.StatusOK, out)
	})
}

func (s *server) oauth1Authorize(c *echo.Context, a *Auth) error {
	return endpoint(s, c, nil, func(in *protocol.OAuth1AuthorizeRequest, _ Request) error {
		uri, token, secret, err := a.OAuth1.Authorize(c.Request().Context(), in.CallbackURI)
		if err != nil {
			return oauthFailure(err)
		}
		return writeJSON(c.Response(), http.StatusOK, protocol.AuthorizeResponse{RedirectURI: uri, Token: token, Secret: secret})
	})
}

func (s *server) oauth1AccessToken(c *echo.Context, a *Auth) error {
	read := func(in *protocol.OAuth1AccessTokenRequest) envelope {
		return envelope{secrets: []string{in.Fields.AccessSecret, in.OAuthVerifier}}
	}
	return endpoint(s, c, read, func(in *protocol.OAuth1AccessTokenRequest, _ Request) error {
		out, err := a.OAuth1.Exchange(c.Request().Context(), in.Fields.AccessToken, in.Fields.AccessSecret, in.Fields.CallbackURI, in.OAuthVerifier)
		if err != nil {
			return oauthFailure(err)
		}
		return writeJSON(c.Response(), http.StatusOK, out)
	})
}
