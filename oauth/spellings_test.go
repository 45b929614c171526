package oauth

import (
	"context"
	"encoding/base64"
	"errors"
	"net/url"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"github.com/appkitgo/appkit/internal/testkit/spellings"
)

// TestMaskedSpellings is what oauth's scrub (secretmask) masks of a secret in each spelling
// it takes (a text holding one spelling at a time).
func TestMaskedSpellings(t *testing.T) {
	t.Parallel()
	mask := func(text string) string { return scrub(text, []string{spellings.Secret}) }
	want := map[string]bool{
		"plain": true, "query-escaped": true, "path-escaped": true, "url-path": true,
		"json": true, "json-no-html": true,
	}
	spellings.Check(t, mask, want)
}

// TestBasicClientCredentialsMasked: a provider that echoes the Basic
// header of the token request (the client's id and secret, as x/oauth2
// spells them) in its error shows neither.
func TestBasicClientCredentialsMasked(t *testing.T) {
	t.Parallel()
	conf := &oauth2.Config{ClientID: "client id", ClientSecret: "client/secret+1"}
	header := base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(conf.ClientID) + ":" + url.QueryEscape(conf.ClientSecret)))
	rt := &oauth2Runtime{conf: conf}
	err := rt.fail(context.Background(), "token exchange", &oauth2.RetrieveError{ErrorCode: "invalid_client", ErrorDescription: "bad header Basic " + header}, nil)
	var pe *ProviderError
	if !errors.As(err, &pe) || strings.Contains(pe.Description, header) || !strings.Contains(pe.Description, "[redacted]") {
		t.Errorf("the error shows the client's Basic credentials: %v", err)
	}
}
