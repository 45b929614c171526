package appkit

import "testing"

// A request's masker is made once, when first needed, and again only when
// more secrets were noted since; without secrets there is none.
func TestRequestMaskerMadeOnce(t *testing.T) {
	t.Parallel()
	d := &logDetails{}
	if d.secretMasker() != nil {
		t.Fatal("a masker without secrets")
	}
	d.secrets = append(d.secrets, "first-secret")
	m := d.secretMasker()
	if m == nil || d.secretMasker() != m {
		t.Fatal("the masker was not kept for the request")
	}
	d.secrets = append(d.secrets, "second-secret")
	m2 := d.secretMasker()
	if m2 == m || d.secretMasker() != m2 {
		t.Fatal("the masker was not made again for the secret noted since")
	}
	if got := m2.MaskValues("first-secret second-secret"); got != "*** ***" {
		t.Errorf("MaskValues = %q", got)
	}
}
