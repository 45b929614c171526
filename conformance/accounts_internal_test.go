package conformance

import (
	"testing"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// pickAuth picks the authentication as appkit sync does (the syncer's
// chooseAuth): the one named; else the only one, else "none", else the
// first that is not OAuth, else the first.
func TestPickAuth(t *testing.T) {
	t.Parallel()
	auths := func(ids ...string) []protocol.Authentication {
		var out []protocol.Authentication
		for _, id := range ids {
			out = append(out, protocol.Authentication{ID: id})
		}
		return out
	}
	for _, tc := range []struct {
		auths []protocol.Authentication
		named string
		want  string // "" for none found
	}{
		{auths("oauth2"), "", "oauth2"},
		{auths("oauth2", "public"), "", "public"},
		{auths("oauth2", "token", "none"), "", "none"},
		{auths("oauth1", "oauth2"), "", "oauth1"},
		{auths("token", "oauth2"), "oauth2", "oauth2"},
		{auths("token"), "other", ""},
		{nil, "", ""},
	} {
		r := &runner{cfg: Config{Auth: tc.named}, desc: &descriptorDoc{Descriptor: protocol.Descriptor{Authentication: tc.auths}}}
		got, found := r.pickAuth()
		if found != (tc.want != "") || got.ID != tc.want {
			t.Errorf("%v named %q: picked %q (found %v), want %q", tc.auths, tc.named, got.ID, found, tc.want)
		}
	}
}

// An authentication needs a given account when it is OAuth or has a field
// to fill; one without fields, or with only links and optional fields, is
// validated with an empty account.
func TestNeedsAccount(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		auth protocol.Authentication
		need bool
	}{
		{protocol.Authentication{ID: "public"}, false},
		{protocol.Authentication{ID: "public", Fields: []protocol.Field{}}, false},
		{protocol.Authentication{ID: "none"}, false},
		{protocol.Authentication{ID: "public", Fields: []protocol.Field{{ID: "about", Type: "link"}, {ID: "note", Type: "text", Optional: true}}}, false},
		{protocol.Authentication{ID: "token", Fields: []protocol.Field{{ID: "token", Type: "password"}}}, true},
		{protocol.Authentication{ID: "oauth2"}, true},
	} {
		if got := needsAccount(tc.auth) != ""; got != tc.need {
			t.Errorf("%+v: needs an account %v, want %v (%q)", tc.auth, got, tc.need, needsAccount(tc.auth))
		}
	}
}
