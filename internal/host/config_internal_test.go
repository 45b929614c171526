package host

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/store"
)

func TestConfigWithDefaults(t *testing.T) {
	t.Parallel()
	c := Config{}.WithDefaults()
	if c.MaxBody != DefaultMaxBody || c.RequestTimeout != DefaultRequestTimeout || c.Notice != io.Discard || c.Now == nil {
		t.Errorf("defaults not filled: %+v", c)
	}
	var notice strings.Builder
	set := Config{MaxBody: -1, RequestTimeout: time.Second, Notice: &notice}.WithDefaults()
	if set.MaxBody != -1 || set.RequestTimeout != time.Second || set.Notice != &notice {
		t.Errorf("set values were changed: %+v", set)
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	good := Config{Store: &store.Store{}}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want []string // nil when valid
	}{
		{"store only", func(*Config) {}, nil},
		{"limits", func(c *Config) { c.RateLimit, c.RateBurst, c.WorkspaceRateLimit = 3, 5, 7 }, nil},
		{"no store", func(c *Config) { c.Store = nil }, []string{"Store is required"}},
		{"rate", func(c *Config) { c.RateLimit = -1 }, []string{"negative rate limit"}},
		{"workspace rate", func(c *Config) { c.WorkspaceRateLimit = -1 }, []string{"negative rate limit"}},
		{"burst", func(c *Config) { c.RateBurst = -1 }, []string{"RateBurst"}},
		{"body", func(c *Config) { c.MaxBody = -1 }, []string{"MaxBody"}},
		{"timeout", func(c *Config) { c.RequestTimeout = -time.Second }, []string{"RequestTimeout"}},
		{"session", func(c *Config) { c.SessionTTL = -time.Second }, []string{"SessionTTL"}},
		{"token", func(c *Config) { c.Token = "short" }, []string{"start-up token", "at least 16"}},
		{"password", func(c *Config) { c.AdminPassword = "short" }, []string{"admin password", "at least 12"}},
		{"every problem at once", func(c *Config) {
			*c = Config{RateLimit: -1, MaxBody: -1, RequestTimeout: -1, SessionTTL: -1, Token: "short", AdminPassword: "short"}
		}, []string{"Store", "rate limit", "MaxBody", "RequestTimeout", "SessionTTL", "start-up token", "admin password"}},
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
}
