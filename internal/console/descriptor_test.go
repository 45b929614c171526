package console_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The app page lists what the conformance suite's descriptor rules find
// in the stored descriptor.
func TestDescriptorFindings(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path != "/" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"message":"no"}`))
			return
		}
		_, _ = w.Write([]byte(`{"name":"Bare","description":"no id, no type","authentication":[{"id":"none","name":"None"}],"sources":[],"responsibleFor":{"dataSynchronization":true,"automations":false},"actions":[]}`))
	}))
	t.Cleanup(bare.Close)
	b := e.browser()
	tok := b.signIn()
	page := b.get(b.register(tok, bare.URL))
	if !strings.Contains(page.body, `<li class="warning"><strong>warning</strong> descriptor.id-and-type`) || strings.Contains(page.body, "follows the conformance suite") {
		t.Errorf("the descriptor's findings are not listed:\n%s", page.body)
	}
}
