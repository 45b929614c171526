package console

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/internal/auth"
	"github.com/appkitgo/appkit/internal/store"
)

func TestConfigWithDefaults(t *testing.T) {
	t.Parallel()
	c := Config{}.WithDefaults()
	if c.OnError == nil || c.AllowSignIn == nil {
		t.Fatalf("defaults not filled: %+v", c)
	}
	r := httptest.NewRequest("POST", "/login", nil)
	c.OnError(r, errors.New("dropped"))
	if ok, retry := c.AllowSignIn(r); !ok || retry != 0 {
		t.Errorf("the default AllowSignIn refuses: %v %v", ok, retry)
	}
	var got error
	set := Config{OnError: func(_ *http.Request, err error) { got = err }}.WithDefaults()
	set.OnError(r, errors.New("kept"))
	if got == nil {
		t.Errorf("a set OnError was replaced")
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	good := Config{Auth: &auth.Service{}, Store: &store.Store{}, SessionCookie: "s"}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want []string // nil when valid
	}{
		{"required only", func(*Config) {}, nil},
		{"no auth", func(c *Config) { c.Auth = nil }, []string{"Auth is required"}},
		{"no store", func(c *Config) { c.Store = nil }, []string{"Store is required"}},
		{"no cookie", func(c *Config) { c.SessionCookie = "" }, []string{"SessionCookie is required"}},
		{"every problem at once", func(c *Config) { *c = Config{} }, []string{"Auth", "Store", "SessionCookie"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := good
			tc.edit(&c)
			err := c.WithDefaults().validate()
			if tc.want == nil {
				if err != nil {
					t.Errorf("valid config refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrConfig) {
				t.Fatalf("want an ErrConfig, got %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q not reported: %v", w, err)
				}
			}
		})
	}
	if _, err := New(Config{}); !errors.Is(err, ErrConfig) {
		t.Errorf("New(Config{}) = %v, want an ErrConfig", err)
	}
}
