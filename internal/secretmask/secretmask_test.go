package secretmask

import (
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// secret holds characters that every escaping changes.
const secret = `p@ss/wö"rd+ 1<&x`

func TestMaskEverySpelling(t *testing.T) {
	t.Parallel()
	m := New(secret)
	m.AddBasic("alice", secret)
	forms := Spellings(secret)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		forms = append(forms, enc.EncodeToString([]byte("alice:"+secret)))
	}
	if len(forms) != 8 {
		t.Fatalf("%d spellings, want 8 (plain, query, path, URL path, JSON, JSON without HTML escapes, 2 base64): %q", len(forms), forms)
	}
	for _, f := range forms {
		for name, got := range map[string]string{
			"Mask":       m.Mask("before " + f + " after"),
			"MaskValues": m.MaskValues("before " + f + " after"),
			"JSON":       m.JSON([]byte(`{"note":"` + f + `"}`)),
		} {
			if strings.Contains(got, f) {
				t.Errorf("%s left %q in %q", name, f, got)
			}
		}
	}
}

func TestMask(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{"none", nil, "token abcd1234", "token abcd1234"},
		{"plain", []string{"abcd1234"}, "token abcd1234 end", "token *** end"},
		{"query-escaped", []string{"a b+c/d"}, "q=a+b%2Bc%2Fd", "q=***"},
		{"path-escaped", []string{"a b/c"}, "/x/a%20b%2Fc", "/x/***"},
		{"url path", []string{"a b/c"}, "/x/a%20b/c", "/x/***"},
		{"longest first", []string{"abcd", "abcdefgh"}, "abcdefgh", "***"},
		{"short masked whole quoted", []string{"ab"}, `{"pw":"ab","x":"abc"}`, `{"pw":"***","x":"abc"}`},
		{"short masked as a query value", []string{"ab"}, "x=ab&y=abc", "x=***&y=abc"},
		{"short masked as the whole text", []string{"ab"}, "ab", "***"},
		{"short kept inside words", []string{"ab"}, "a table about ab ba", "a table about ab ba"},
		{"made again by masking", []string{"a***"}, "aa***", "***"},
		{"empty secret ignored", []string{""}, "text", "text"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := New(c.secrets...).Mask(c.in); got != c.want {
				t.Errorf("Mask(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestMaskValues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		secrets []string
		in      string
		want    string
	}{
		{"value holding a secret", []string{"s3cr3t-token"}, "bad token=s3cr3t-token, retry", "bad ***, retry"},
		{"quoted value", []string{"s3cr3t-token"}, `field "Bearer s3cr3t-token"`, `field "Bearer ***"`},
		{"secret with spaces", []string{"pass phrase"}, "got pass phrase here", "got *** here"},
		{"short quoted", []string{"ab"}, `value "ab" in ab-cd`, `value "***" in ab-cd`},
		{"escaped spelling", []string{"a/b c"}, "path /x/a%2Fb%20c failed", "path *** failed"},
		{"no secret", []string{"s3cr3t-token"}, "all fine", "all fine"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := New(c.secrets...).MaskValues(c.in); got != c.want {
				t.Errorf("MaskValues(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestMaskValue(t *testing.T) {
	t.Parallel()
	m := New("ab", "s3cr3t")
	for in, want := range map[string]string{"ab": "***", "abc": "abc", "type-s3cr3t": "***", "issues": "issues"} {
		if got := m.MaskValue(in); got != want {
			t.Errorf("MaskValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFields(t *testing.T) {
	t.Parallel()
	cases := []struct{ in, want string }{
		{`{"access_token":"t-1","name":"x"}`, `{"access_token":"***","name":"x"}`},
		{`{"a":[{"refresh_token":"r-2"}],"session":"s"}`, `{"a":[{"refresh_token":"***"}],"session":"***"}`},
		{`{"token":"cut sho`, `{"token":"***"`},
		{`{"token":123,"key":null}`, `{"token":123,"key":null}`},
		{`["token","value"]`, `["token","value"]`},
		{`not json "token": "x"`, `not json "token": "x"`},
		{`{"user":"ann","password":"hunter22","nested":{"apiKey":"k"}}`, `{"user":"ann","password":"***","nested":{"apiKey":"***"}}`},
	}
	for _, c := range cases {
		if got := string(New().Fields([]byte(c.in))); got != c.want {
			t.Errorf("Fields(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	var nilMasker *Masker
	if got := string(nilMasker.Fields([]byte(`{"token":"x"}`))); got != `{"token":"***"}` {
		t.Errorf("a nil Masker's Fields = %s", got)
	}
}

func TestRemember(t *testing.T) {
	t.Parallel()
	m := NewWith(Options{Remember: true})
	m.JSON([]byte(`{"access_token":"fresh-token-1","code":"ab"}`))
	if got := m.Mask("later fresh-token-1 ab"); got != "later *** ab" {
		t.Errorf("after an answer brought a token: %q", got)
	}
	if got := New().JSON([]byte(`{"access_token":"fresh-token-1"}`)) + New().Mask("fresh-token-1"); strings.Count(got, "fresh-token-1") != 1 {
		t.Errorf("a Masker without Remember remembered: %q", got)
	}
}

// A body with many secret-named fields: every value is remembered, at
// once, and masked from then on.
func TestRememberMany(t *testing.T) {
	t.Parallel()
	var body strings.Builder
	var values []string
	body.WriteString("{")
	for i := range 780 {
		v := fmt.Sprintf("value-%04d", i)
		values = append(values, v)
		if i > 0 {
			body.WriteString(",")
		}
		fmt.Fprintf(&body, `"token%d":%q,"name%d":"kept"`, i, v, i)
	}
	body.WriteString("}")
	m := NewWith(Options{Remember: true})
	if out := m.JSON([]byte(body.String())); strings.Contains(out, "value-") || !strings.Contains(out, "kept") {
		t.Fatalf("JSON left a value or masked a name: %.200s", out)
	}
	before, _ := m.secrets()
	m.Fields([]byte(body.String())) // nothing new
	if after, _ := m.secrets(); len(after) != len(before) || &after[0] != &before[0] {
		t.Error("remembering known values replaced the spellings")
	}
	text := strings.Join(values, " ")
	if got := m.Mask(text); strings.Contains(got, "value-") {
		t.Fatalf("a remembered value is not masked: %.200s", got)
	}
	if n := len(m.known); n != len(values) {
		t.Errorf("%d secrets known, want %d", n, len(values))
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	m := NewWith(Options{Mask: "[x]", Names: func(k string) bool { return k == "pin" }})
	if got := m.Query("pin=1&token=2"); got != "pin=[x]&token=2" {
		t.Errorf("Query = %q", got)
	}
	for in, want := range map[string]string{
		"a=1&access%5Ftoken=2&b": "a=1&access%5Ftoken=***&b",
		"a=1&api_key=s3cr3t&b=2": "a=1&api_key=***&b=2",
		"x=1&%zz=2":              "x=1&%zz=2",
		"":                       "",
	} {
		if got := New().Query(in); got != want {
			t.Errorf("Query(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCutNeverEndsWithASecretStart(t *testing.T) {
	t.Parallel()
	m := New("abcdefgh")
	for n := 1; n <= 20; n++ {
		text := strings.Repeat("x", n) + "abcdefgh tail"
		got := m.Body([]byte(text), n+5, "…", false)
		if strings.HasSuffix(strings.TrimSuffix(got, "…"), "a") || strings.Contains(got, "abcd") {
			t.Errorf("Body cut at %d: %q", n+5, got)
		}
		if len(got) > n+5 {
			t.Errorf("Body cut at %d is %d bytes: %q", n+5, len(got), got)
		}
	}
	if got := m.Body([]byte(`{"a":"é`), 6, "…", false); !utf8.ValidString(got) {
		t.Errorf("Body cut in a rune: %q", got)
	}
	if got := m.Body([]byte("short"), 100, "…", false); got != "short" {
		t.Errorf("Body of a short text: %q", got)
	}
	if got := m.Body([]byte("start xabcd"), 100, "…", true); got != "start x…" {
		t.Errorf("Body of the start of a text: %q", got)
	}
	if got := m.Body([]byte(strings.Repeat("y", 20)+"abcd"), 16, "…", false); got != strings.Repeat("y", 13)+"…" {
		t.Errorf("Body cut at 16: %q", got)
	}
	if got := m.Body([]byte(strings.Repeat("y", 11)+"abcdefgh"), 16, "…", false); strings.Contains(got, "a") {
		t.Errorf("Body of the start of a text: %q", got)
	}
}

func TestMaxSecrets(t *testing.T) {
	t.Parallel()
	m := New()
	for i := range MaxSecrets + 10 {
		m.Add(strings.Repeat("s", 4) + string(rune('a'+i%26)) + strings.Repeat("z", i/26))
	}
	if n := len(m.known); n != MaxSecrets {
		t.Errorf("%d secrets kept, want %d", n, MaxSecrets)
	}
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	m := NewWith(Options{Remember: true}, "first-secret")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				m.JSON([]byte(`{"token":"tok-` + string(rune('a'+i)) + string(rune('a'+j%26)) + `"} first-secret`))
			}
		})
	}
	wg.Wait()
	if got := m.Mask("tok-ab first-secret"); got != "*** ***" {
		t.Errorf("after concurrent use: %q", got)
	}
}

func TestNilMasker(t *testing.T) {
	t.Parallel()
	var nilMasker *Masker
	if got := nilMasker.Mask("x"); got != "x" {
		t.Errorf("nil Mask = %q", got)
	}
}

// BenchmarkFieldsRemember is a hostile answer: 16 KiB of secret-named
// fields, each value remembered.
func BenchmarkFieldsRemember(b *testing.B) {
	var body strings.Builder
	body.WriteString("{")
	for i := 0; body.Len() < 16<<10; i++ {
		fmt.Fprintf(&body, `"token%d":"v-%06d",`, i, i)
	}
	body.WriteString(`"end":0}`)
	for b.Loop() {
		NewWith(Options{Remember: true}).Fields([]byte(body.String()))
	}
}

func BenchmarkMaskNoSecret(b *testing.B) {
	m := New()
	text := strings.Repeat("an upstream error message ", 10)
	for b.Loop() {
		_ = m.Mask(text)
	}
}

func BenchmarkMask(b *testing.B) {
	m := New("s3cr3t-token-value")
	m.AddBasic("user", "pass-word")
	text := strings.Repeat("an upstream error message ", 10)
	for b.Loop() {
		_ = m.Mask(text)
	}
}

// URL masks the user information and the secret-named query and fragment
// parameters, parsed or over the text, and leaves the secrets it was given
// to Mask.
func TestURL(t *testing.T) {
	t.Parallel()
	var names *Masker
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "https://api.example/x?page=2", "https://api.example/x?page=2"},
		{"secret-named parameter", "https://api.example/x?access_token=x&page=2", "https://api.example/x?access_token=***&page=2"},
		{"user and password", "https://user:pw@api.example/x", "https://***@api.example/x"},
		{"user alone", "https://user@api.example/x", "https://***@api.example/x"},
		{"both", "https://user:pw@api.example/x?access_token=x&page=2", "https://***@api.example/x?access_token=***&page=2"},
		{"already masked", "https://api.example/x?access_token=***&page=2", "https://api.example/x?access_token=***&page=2"},
		{"fragment", "https://api.example/cb#access_token=x&state=s", "https://api.example/cb#access_token=***&state=s"},
		{"escaped name", "https://api.example/x?access%5Ftoken=x", "https://api.example/x?access%5Ftoken=***"},
		{"@ in the path", "https://api.example/users/@me?page=2", "https://api.example/users/@me?page=2"},
		{"unparsable", "https://user:p%zz@api.example/%zz?access_token=x&page=2", "https://***@api.example/%zz?access_token=***&page=2"},
		{"unparsable without credentials", "https://api.example/%zz/a@b?key=x", "https://api.example/%zz/a@b?key=***"},
		{"no scheme", "//user:pw@api.example/x?token=x", "//***@api.example/x?token=***"},
		{"a path with credentials", "0//user:pw@api.example", "0//***@api.example"},
		{"no host", "/relative?sig=abc", "/relative?sig=***"},
		{"not a URL", "u", "u"},
		{"empty", "", ""},
	} {
		if got := names.URL(tc.in); got != tc.want {
			t.Errorf("%s: URL(%q) = %q, want %q", tc.name, tc.in, got, tc.want)
		}
	}
	m := NewWith(Options{Mask: "[hidden]"})
	m.Add("api-secret-value")
	if got := m.URL("https://u:p@h/api-secret-value?key=k"); got != "https://[hidden]@h/api-secret-value?key=[hidden]" {
		t.Errorf("with a mask of its own: %q (the secrets are Mask's to mask)", got)
	}
}
