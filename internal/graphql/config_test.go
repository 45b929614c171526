package graphql

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
)

// mustNew is New that fails the test on an error.
func mustNew(t testing.TB, cfg Config) *Service {
	t.Helper()
	svc, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func TestConfigWithDefaults(t *testing.T) {
	t.Parallel()
	gate := query.NewGate(1)
	cases := []struct {
		name string
		in   Config
		want func(Config) string
	}{
		{"unset", Config{}, func(c Config) string {
			switch {
			case c.MaxBody != DefaultMaxBody, c.MaxQueryBytes != DefaultMaxQueryBytes, c.MaxTokens != DefaultMaxTokens,
				c.MaxDepth != DefaultMaxDepth, c.MaxComplexity != DefaultMaxComplexity, c.Timeout != DefaultTimeout:
				return "request bounds not defaulted"
			case c.MaxSelected != MaxSelected, c.MaxWriteBytes != MaxWriteBytes, c.MaxAnswerBytes != query.MaxAnswerBytes:
				return "mutation and answer bounds not defaulted"
			case c.MaxFileBytes != DefaultMaxFileBytes, c.FetchTimeout != DefaultFetchTimeout:
				return "download bounds not defaulted"
			case c.Gate == nil, c.FilesPath != DefaultFilesPath:
				return "Gate or FilesPath not defaulted"
			}
			return ""
		}},
		{"negative bounds take the defaults", Config{MaxBody: -1, MaxDepth: -3, Timeout: -time.Second, MaxFileBytes: -1}, func(c Config) string {
			if c.MaxBody != DefaultMaxBody || c.MaxDepth != DefaultMaxDepth || c.Timeout != DefaultTimeout || c.MaxFileBytes != DefaultMaxFileBytes {
				return "negative bounds kept"
			}
			return ""
		}},
		{"set values kept", Config{MaxBody: 7, MaxDepth: 3, Timeout: time.Second, MaxSelected: 2, MaxAnswerBytes: 9, Gate: gate, FilesPath: "/f/", FetchTimeout: time.Minute}, func(c Config) string {
			if c.MaxBody != 7 || c.MaxDepth != 3 || c.Timeout != time.Second || c.MaxSelected != 2 || c.MaxAnswerBytes != 9 ||
				c.Gate != gate || c.FilesPath != "/f/" || c.FetchTimeout != time.Minute {
				return "a set value was replaced"
			}
			return ""
		}},
	}
	for _, tc := range cases {
		if msg := tc.want(tc.in.WithDefaults()); msg != "" {
			t.Errorf("%s: %s", tc.name, msg)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	st := &store.Store{}
	cases := []struct {
		name string
		in   Config
		want []string // nil: valid
	}{
		{"defaults with a store", Config{Store: st}.WithDefaults(), nil},
		{"no store", Config{}.WithDefaults(), []string{"Store is required"}},
		{"relative files path", Config{Store: st, FilesPath: "files/"}.WithDefaults(), []string{`FilesPath "files/"`}},
		{"files path without a trailing slash", Config{Store: st, FilesPath: "/files"}.WithDefaults(), []string{`FilesPath "/files"`}},
		{"every problem at once", Config{MaxBody: -1, Timeout: 0}, []string{
			"Store is required", "MaxBody is -1", "Timeout is 0", "MaxFileBytes is 0", "Gate is required", `FilesPath ""`,
		}},
	}
	for _, tc := range cases {
		err := tc.in.validate()
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%s: want an ErrConfig, got %v", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not name %q", tc.name, err, w)
			}
		}
	}
}

func TestNewRefusesAnInvalidConfig(t *testing.T) {
	t.Parallel()
	if svc, err := New(Config{}); svc != nil || !errors.Is(err, ErrConfig) {
		t.Errorf("New(Config{}) = %v, %v; want nil and an ErrConfig", svc, err)
	}
}
