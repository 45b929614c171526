package apps

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/store"
)

func TestConfigWithDefaults(t *testing.T) {
	t.Parallel()
	c := Config{BaseURL: "http://h:1/"}.WithDefaults()
	if c.HostID == "" || c.RequestTimeout != DefaultRequestTimeout || c.LeaseTTL != DefaultLeaseTTL || c.Poll != DefaultPoll ||
		c.Workers != DefaultWorkers || c.MaxRunsPerApp != 1 || c.PauseDelay != DefaultPauseDelay || c.KeepExchanges != DefaultKeepExchanges || c.KeepActionRuns != DefaultKeepActionRuns ||
		c.Networks != DefaultNetworks || c.HTTPClient == nil || c.Now == nil || c.BaseURL != "http://h:1" {
		t.Errorf("defaults not filled: %+v", c)
	}
	set := Config{HostID: "a", LeaseTTL: time.Second, Workers: 5, Poll: -time.Second}.WithDefaults()
	if set.HostID != "a" || set.LeaseTTL != time.Second || set.Workers != 5 || set.Poll != -time.Second || set.MaxRunsPerApp != 3 {
		t.Errorf("set values were changed, or MaxRunsPerApp is not half of Workers rounded up: %+v", set)
	}
	if c := (Config{Workers: 4, MaxRunsPerApp: 4}).WithDefaults(); c.MaxRunsPerApp != 4 {
		t.Errorf("MaxRunsPerApp set to 4 became %d", c.MaxRunsPerApp)
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	st := &store.Store{}
	key := bytes.Repeat([]byte{9}, KeySize)
	good := Config{Store: st, Key: key}
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string // "" when valid
	}{
		{"key", func(*Config) {}, ""},
		{"key text", func(c *Config) { c.Key, c.KeyText = nil, hex.EncodeToString(key) }, ""},
		{"no store", func(c *Config) { c.Store = nil }, "Store is required"},
		{"no key", func(c *Config) { c.Key = nil }, "secret key"},
		{"both keys", func(c *Config) { c.KeyText = hex.EncodeToString(key) }, "not both"},
		{"short key", func(c *Config) { c.Key = key[:5] }, "5 bytes"},
		{"bad key text", func(c *Config) { c.Key, c.KeyText = nil, "nope" }, "KeyText"},
		{"lease", func(c *Config) { c.LeaseTTL = time.Millisecond }, "LeaseTTL"},
		{"poll", func(c *Config) { c.Poll = -time.Second }, "Poll"},
		{"timeout", func(c *Config) { c.RequestTimeout = -1 }, "RequestTimeout"},
		{"pause", func(c *Config) { c.PauseDelay = -1 }, "PauseDelay"},
		{"workers", func(c *Config) { c.Workers = -1 }, "Workers"},
		{"runs per app", func(c *Config) { c.MaxRunsPerApp = -1 }, "MaxRunsPerApp"},
		{"runs per app over workers", func(c *Config) { c.Workers, c.MaxRunsPerApp = 2, 3 }, "MaxRunsPerApp is 3, want 1 to Workers (2)"},
		{"every worker for one app", func(c *Config) { c.Workers, c.MaxRunsPerApp = 3, 3 }, ""},
		{"exchanges", func(c *Config) { c.KeepExchanges = -2 }, "KeepExchanges"},
		{"commit", func(c *Config) { c.CommitItems = -2 }, "CommitItems"},
		{"action runs", func(c *Config) { c.KeepActionRuns = -1 }, "KeepActionRuns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := good
			tc.edit(&c)
			got, err := c.WithDefaults().validate()
			if tc.want == "" {
				if err != nil || !bytes.Equal(got, key) {
					t.Errorf("valid config refused: %x %v", got, err)
				}
				return
			}
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("want an ErrConfig naming %q, got %v", tc.want, err)
			}
		})
	}
	// Every problem is named at once.
	_, err := Config{LeaseTTL: time.Millisecond}.WithDefaults().validate()
	for _, want := range []string{"Store", "secret key", "LeaseTTL"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q not reported: %v", want, err)
		}
	}
}
