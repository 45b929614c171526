package secretmask

import "testing"

func TestSecretName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		want bool
	}{
		{"access_token", true}, {"API_KEY", true}, {"client_secret", true}, {"password", true},
		{"code_verifier", true}, {"X-Amz-Signature", true}, {"session", true}, {"sig", true}, {"SIG", true},
		// Words that only hold a shorter word stay readable: an account's
		// "auth" is the id of its authentication, "design" and "assignee"
		// hold "sig".
		{"auth", false}, {"design", false}, {"assignee", false}, {"name", false}, {"page", false},
	} {
		if got := SecretName(tc.name); got != tc.want {
			t.Errorf("SecretName(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := New().Query("sig=abc&design=x&page=2"); got != "sig=***&design=x&page=2" {
		t.Errorf("Query: %q", got)
	}
}
