package upstream_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/upstream"
	"github.com/appkitgo/appkit/oauth"
)

// TestOAuth2RefreshOn401: concurrent calls refused with the old token make
// one refresh, and each is sent again once with the new token.
func TestOAuth2RefreshOn401(t *testing.T) {
	t.Parallel()
	const callers = 5
	var refused, refreshes, apiCalls atomic.Int32
	allRefused := make(chan struct{})
	var once sync.Once
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		refreshes.Add(1)
		<-allRefused // every caller got its 401 before the refresh answers
		if r.FormValue("refresh_token") != "refresh-1-abcdef" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			fmt.Fprint(w, `{"error":"invalid_grant"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"access_token":"access-2-abcdef","refresh_token":"refresh-2-abcdef","token_type":"Bearer","expires_in":3600}`)
	})
	mux.HandleFunc("GET /api/me", func(w http.ResponseWriter, r *http.Request) {
		apiCalls.Add(1)
		if r.Header.Get("Authorization") != "Bearer access-2-abcdef" {
			if refused.Add(1) == callers {
				once.Do(func() { close(allRefused) })
			}
			w.WriteHeader(401)
			return
		}
		fmt.Fprint(w, `{"name":"ann"}`)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	flow := &oauth.OAuth2{ClientID: "cid", ClientSecret: "csecret", AuthURL: srv.URL + "/authorize", TokenURL: srv.URL + "/token", HTTPClient: srv.Client()}
	c := &upstream.Client{BaseURL: srv.URL + "/api", Auth: upstream.OAuth2(flow), HTTPClient: srv.Client()}
	account := appkit.Account{"auth": "oauth2", "access_token": "access-1-abcdef", "refresh_token": "refresh-1-abcdef", "token_type": "Bearer"}

	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for range callers {
		wg.Go(func() {
			me, err := upstream.Get[struct{ Name string }](t.Context(), c.For(account), "/me", nil)
			if err == nil && me.Name != "ann" {
				err = fmt.Errorf("me = %+v", me)
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if refreshes.Load() != 1 || apiCalls.Load() != 2*callers {
		t.Fatalf("%d refreshes, %d API calls; want 1 and %d", refreshes.Load(), apiCalls.Load(), 2*callers)
	}
	// Later calls of the same account use the new token at once.
	if _, err := upstream.Get[any](t.Context(), c.For(account), "/me", nil); err != nil || apiCalls.Load() != 2*callers+1 {
		t.Fatalf("a later call: %v, %d API calls", err, apiCalls.Load())
	}

	// A refresh token the provider refuses: invalid account, tokens masked.
	dead := appkit.Account{"access_token": "access-9-abcdef", "refresh_token": "refresh-9-abcdef"}
	_, err := upstream.Get[any](t.Context(), c.For(dead), "/me", nil)
	var ae *appkit.Error
	if !errors.As(err, &ae) || ae.Status != 401 || !errors.Is(err, upstream.ErrUnauthorized) || strings.Contains(err.Error(), "refresh-9-abcdef") {
		t.Fatalf("refused refresh: %v", err)
	}
}

// TestOAuth1Signs: OAuth 1 requests are signed by the flow's client.
func TestOAuth1Signs(t *testing.T) {
	t.Parallel()
	c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.Header.Get("Authorization"), "OAuth ") || !strings.Contains(r.Header.Get("Authorization"), `oauth_token="tok-1"`) {
			w.WriteHeader(401)
			return
		}
		fmt.Fprint(w, `{}`)
	})
	flow := &oauth.OAuth1{ConsumerKey: "ck", ConsumerSecret: "cs", RequestTokenURL: "https://p.example/rt", AuthorizeURL: "https://p.example/a", AccessTokenURL: "https://p.example/at"}
	c.Auth = upstream.OAuth1(flow)
	if _, err := upstream.Get[any](t.Context(), c.For(appkit.Account{"access_token": "tok-1", "access_secret": "sec-1"}), "/me", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := upstream.Get[any](t.Context(), c.For(appkit.Account{}), "/me", nil); !errors.Is(err, upstream.ErrUnauthorized) {
		t.Fatalf("no token: %v", err)
	}
}
