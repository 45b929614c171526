package oauth

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestProblem(t *testing.T) {
	t.Parallel()
	cases := []struct{ body, code, desc string }{
		{"", "", ""},
		{"oauth_problem=signature_invalid&oauth_problem_advice=bad+signature", "signature_invalid", "bad signature"},
		{`{"error":"invalid_grant","error_description":"code expired"}`, "invalid_grant", "code expired"},
		{`{"errors":[{"code":32,"message":"Could not authenticate you."}]}`, "32", "Could not authenticate you."},
		{`{"error":{"code":"E1","message":"nope"}}`, "E1", "nope"},
		{`{"message":"Bad credentials"}`, "", "Bad credentials"},
		{`<html><body>502 Bad Gateway</body></html>`, "", "an HTML page"},
		{`{"unrelated":1}`, "", `{"unrelated":1}`},
		{"plain text failure", "", "plain text failure"},
	}
	for _, tc := range cases {
		code, desc := problem([]byte(tc.body))
		if code != tc.code || desc != tc.desc {
			t.Errorf("problem(%q) = %q, %q; want %q, %q", tc.body, code, desc, tc.code, tc.desc)
		}
	}
}

func TestScrub(t *testing.T) {
	t.Parallel()
	secret := "s3cr3t/with+chars"
	in := "key " + secret + " escaped s3cr3t%2Fwith%2Bchars path s3cr3t%2Fwith+chars\n\tnext\x00line"
	got := scrub(in, []string{secret, "", "ab"})
	if strings.Contains(got, "s3cr3t") {
		t.Fatalf("scrub left a secret: %q", got)
	}
	if strings.ContainsAny(got, "\n\t\x00") || strings.Contains(got, "  ") {
		t.Fatalf("scrub left control characters or runs of spaces: %q", got)
	}
	long := scrub(strings.Repeat("é", 1000), nil)
	if n := utf8.RuneCountInString(long); n > maxDescription+1 || !strings.HasSuffix(long, "…") {
		t.Fatalf("long text: %d runes", n)
	}
}

// The cut counts the spaces between words: the text kept is at most
// maxDescription runes, then "…".
func TestScrubCutsAtTheCap(t *testing.T) {
	t.Parallel()
	x := func(n int) string { return strings.Repeat("x", n) }
	cases := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"spaces only", " \t\n", ""},
		{"exactly the cap", x(maxDescription), x(maxDescription)},
		{"one over", x(maxDescription + 1), x(maxDescription) + "…"},
		{"word ending at the cap", x(maxDescription-2) + " y", x(maxDescription-2) + " y"},
		{"word ending at the cap, more after", x(maxDescription-2) + " y z", x(maxDescription-2) + " y…"},
		// The space would be rune 300 and the next word's first rune 301.
		{"space at the cap", x(maxDescription-1) + " yy", x(maxDescription-1) + "…"},
		{"space after the cap", x(maxDescription) + " y", x(maxDescription) + "…"},
	}
	for _, c := range cases {
		got := scrub(c.in, nil)
		if got != c.want {
			t.Errorf("%s: scrub gives %d runes %q, want %d runes %q", c.name,
				utf8.RuneCountInString(got), got, utf8.RuneCountInString(c.want), c.want)
		}
	}
}

func TestProviderErrorMessage(t *testing.T) {
	t.Parallel()
	e := &ProviderError{Version: "oauth2", Op: "token refresh", Status: 400, Code: "invalid_grant", Description: "revoked"}
	if got := e.Error(); got != "oauth2 token refresh: the provider refused: invalid_grant: revoked (HTTP 400)" {
		t.Fatalf("message %q", got)
	}
	if e.Temporary() || errors.Is(e, ErrProviderUnreachable) {
		t.Fatal("a refusal is not temporary")
	}
	for _, e := range []*ProviderError{{Status: 503}, {Status: 429}, {Unreachable: true}, {TimedOut: true}} {
		if !e.Temporary() {
			t.Errorf("%+v is temporary", e)
		}
	}
}

func FuzzProblem(f *testing.F) {
	for _, s := range []string{"oauth_problem=x&oauth_problem_advice=y", `{"error":"e","error_description":"d"}`,
		`{"errors":[{"code":1.5e3,"message":"m"}]}`, `{"error":{"code":null}}`, "<p>", "%zz oauth_problem="} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		code, desc := problem(body)
		// Whatever it says goes through scrub before it reaches a message.
		for _, s := range []string{scrub(code, nil), scrub(desc, nil)} {
			if !utf8.ValidString(s) || strings.ContainsAny(s, "\n\r\t\x00") || utf8.RuneCountInString(s) > maxDescription+1 {
				t.Fatalf("problem(%.60q) scrubs to %q (valid %v, runes %d)", body, s, utf8.ValidString(s), utf8.RuneCountInString(s))
			}
		}
	})
}
