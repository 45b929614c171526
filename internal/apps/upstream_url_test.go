package apps

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/calllog"
)

// A URL an app reported is masked by the host whether or not the app
// masked it: its credentials, its secret-named query (and fragment)
// parameters and the account's secrets; the rest keeps its bytes.
func TestMaskerURL(t *testing.T) {
	t.Parallel()
	m := newMasker(map[string]any{"token": "account-token-42"}, nil)
	for _, tc := range []struct{ name, in, want string }{
		// The URL's own parts (secretmask.Masker.URL, see its TestURL)...
		{"plain", "https://api.example/x?page=2", "https://api.example/x?page=2"},
		{"both", "https://user:pw@api.example/x?access_token=x&page=2", "https://***@api.example/x?access_token=***&page=2"},
		{"unparsable", "https://user:p%zz@api.example/%zz?access_token=x&page=2", "https://***@api.example/%zz?access_token=***&page=2"},
		// ...then the account's secrets.
		{"known secret", "https://api.example/x/account-token-42?q=account-token-42", "https://api.example/x/***?q=***"},
		{"known secret in a fragment", "https://api.example/cb#state=account-token-42", "https://api.example/cb#state=***"},
	} {
		if got := m.url(tc.in); got != tc.want {
			t.Errorf("%s: url(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
	if got := (*masker)(nil).url("https://u:pw@h/?token=x"); got != "https://***@h/?token=***" {
		t.Errorf("a nil masker: %q", got)
	}
}

// The URLs in a reported text (an upstream call's error) are masked as
// masker.url masks them; the rest of the text keeps its bytes.
func TestMaskerURLsIn(t *testing.T) {
	t.Parallel()
	m := newMasker(map[string]any{"token": "account-token-42"}, nil)
	for _, tc := range []struct{ name, in, want string }{
		{"no URL", "connection refused", "connection refused"},
		{"Go's client error", `Get "https://user:pw@api.example/x?access_token=x&page=2": dial tcp: i/o timeout`,
			`Get "https://***@api.example/x?access_token=***&page=2": dial tcp: i/o timeout`},
		{"two URLs", "from http://a.example/?key=k1 to https://b.example/?secret=s2 failed",
			"from http://a.example/?key=*** to https://b.example/?secret=*** failed"},
		{"at the end", "redirect to https://u:p@h/", "redirect to https://***@h/"},
		{"known secret", "token account-token-42 refused", "token *** refused"},
		{"scheme alone", "https://", "https://"},
	} {
		if got := m.urlsIn(tc.in); got != tc.want {
			t.Errorf("%s: urlsIn(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
}

// A report whose URL and error the app left unmasked (a hostile or
// careless app) is kept masked in the exchange.
func TestUnmaskedReportedURL(t *testing.T) {
	t.Parallel()
	c := calllog.New(false)
	c.Add(calllog.Call{Method: "GET", URL: "https://user:pw-secret@api.example/x?access_token=tok-secret&page=2", Status: 200,
		Error: `Get "https://user:pw-secret@api.example/x?access_token=tok-secret&page=2": EOF`})
	report := c.Header()
	if !strings.Contains(report, "tok-secret") || !strings.Contains(report, "pw-secret") {
		t.Fatalf("the report is masked by calllog already: %s", report)
	}
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set(calllog.AnswerHeader, report)
		io.WriteString(w, `{"items":[]}`)
	}))
	defer app.Close()
	rec, hc := newRecorder(app.Client(), newMasker(nil, nil), false)
	postData(t, hc, app.URL, "things", nil)
	ex, _ := rec.exchanges()
	if len(ex) != 1 || len(ex[0].Upstream) != 1 {
		t.Fatalf("%+v", ex)
	}
	if u := ex[0].Upstream[0].URL; u != "https://***@api.example/x?access_token=***&page=2" {
		t.Errorf("kept %q", u)
	}
	if e := ex[0].Upstream[0].Error; e != `Get "https://***@api.example/x?access_token=***&page=2": EOF` {
		t.Errorf("kept the error %q", e)
	}
	b, _ := json.Marshal(ex[0])
	if strings.Contains(string(b), "tok-secret") || strings.Contains(string(b), "pw-secret") {
		t.Errorf("a secret is kept: %s", b)
	}
}

// FuzzMaskerURL: masker.url never panics, and a URL's password and a
// secret-named parameter's value never survive it.
func FuzzMaskerURL(f *testing.F) {
	f.Add("https://", "user", "/x", "page=2")
	f.Add("http://", "", "/%zz", "")
	f.Add("", "u", "a@b", "q")
	f.Add("mailto:", "x", "", "a=b&c")
	f.Fuzz(func(t *testing.T, scheme, user, path, query string) {
		const pw, tok = "Pw-Fuzz-Secret", "Tok-Fuzz-Secret"
		raw := scheme + "//" + user + ":" + pw + "@api.example" + path + "?" + query + "&access_token=" + tok
		if strings.ContainsAny(scheme, "/?#@") || strings.ContainsAny(user+path, "/?#@") || strings.Contains(query, "#") {
			t.Skip()
		}
		got := newMasker(nil, nil).url(raw)
		if strings.Contains(got, pw) || strings.Contains(got, tok) {
			t.Fatalf("url(%q) = %q", raw, got)
		}
	})
}

// Without the account's secrets (a nil masker), the recorder still masks
// the secret-named fields of the bodies it keeps and of the bodies an app
// reported, and remembers nothing from a reported body.
func TestMaskingWithoutSecrets(t *testing.T) {
	t.Parallel()
	r := &recorder{}
	if got := r.body([]byte(`{"password":"pw-1","q":1}`)); got != `{"password":"***","q":1}` {
		t.Errorf("body: %s", got)
	}
	for _, m := range []*masker{nil, newMasker(nil, nil)} {
		if got := m.reported(`{"access_token":"tok-12345","page":2}`); got != `{"access_token":"***","page":2}` {
			t.Errorf("reported: %s", got)
		}
		if got := m.mask("tok-12345"); got != "tok-12345" {
			t.Errorf("a reported body's token was remembered: %s", got)
		}
	}
}

// FuzzMaskerURLsIn: urlsIn never panics, leaves a text without a URL as
// it is, and masks a URL between quotes or spaces whatever surrounds it.
func FuzzMaskerURLsIn(f *testing.F) {
	f.Add("Get ", `": EOF`)
	f.Add("", "")
	f.Add("http://x ", " https://")
	f.Fuzz(func(t *testing.T, before, after string) {
		m := newMasker(nil, nil)
		if !strings.Contains(before+after, "http") && m.urlsIn(before+after) != before+after {
			t.Fatalf("urlsIn(%q) changed a text without a URL", before+after)
		}
		got := m.urlsIn(before + ` "https://u:Pw-Fuzz-Secret@api.example/x?token=Tok-Fuzz-Secret" ` + after)
		if strings.Contains(got, "Pw-Fuzz-Secret") || strings.Contains(got, "Tok-Fuzz-Secret") {
			t.Fatalf("a secret shows: %q", got)
		}
	})
}
