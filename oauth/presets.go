package oauth

import (
	"slices"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/endpoints"
)

// Provider presets: OAuth2 configurations of common providers, with their
// endpoints (from golang.org/x/oauth2/endpoints) and the parameters they need
// for a refreshable account. The result is an ordinary *OAuth2: set Account,
// Timeout and the rest before use.

// GitHub is a GitHub OAuth app. GitHub's tokens do not expire unless the
// app opts into expiring user tokens; then a refresh token comes with them.
func GitHub(clientID, clientSecret string, scopes ...string) *OAuth2 {
	return fromEndpoint(endpoints.GitHub, clientID, clientSecret, scopes)
}

// GitLab is a gitlab.com application (tokens expire after two hours and
// come with a rotating refresh token); PKCE is on.
func GitLab(clientID, clientSecret string, scopes ...string) *OAuth2 {
	p := fromEndpoint(endpoints.GitLab, clientID, clientSecret, scopes)
	p.PKCE = true
	return p
}

// Google is a Google OAuth client. access_type=offline and prompt=consent
// make Google issue a refresh token at every connection; PKCE is on.
func Google(clientID, clientSecret string, scopes ...string) *OAuth2 {
	p := fromEndpoint(endpoints.Google, clientID, clientSecret, scopes)
	p.PKCE = true
	p.AuthParams = map[string]string{"access_type": "offline", "prompt": "consent"}
	return p
}

// Microsoft is a Microsoft identity platform (Entra ID) application of
// tenant ("" means "common"). The offline_access scope, needed for a refresh
// token, is added when missing; PKCE is on.
func Microsoft(tenant, clientID, clientSecret string, scopes ...string) *OAuth2 {
	if !slices.Contains(scopes, "offline_access") {
		scopes = append(slices.Clip(scopes), "offline_access")
	}
	p := fromEndpoint(endpoints.AzureAD(tenant), clientID, clientSecret, scopes)
	p.PKCE = true
	return p
}

func fromEndpoint(e oauth2.Endpoint, clientID, clientSecret string, scopes []string) *OAuth2 {
	return &OAuth2{
		ClientID:     clientID,
		ClientSecret: clientSecret,
		AuthURL:      e.AuthURL,
		TokenURL:     e.TokenURL,
		AuthStyle:    e.AuthStyle,
		Scopes:       slices.Clone(scopes),
	}
}
