package conformance

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults of the bounds in [Config].
const (
	DefaultTimeout    = 10 * time.Second
	DefaultSlowAfter  = 2 * time.Second
	DefaultMaxPages   = 1000
	DefaultRunTimeout = 2 * time.Minute
	DefaultMaxBody    = 32 << 20
	// DefaultTotalTimeout bounds a whole run.
	DefaultTotalTimeout = 10 * time.Minute
	// DefaultMaxTypes bounds the types a run synchronizes.
	DefaultMaxTypes = 50
)

// Config says which app to check and how.
type Config struct {
	// URL is the app's base address (http or https). Exactly one of URL and
	// Handler is set.
	URL string
	// Handler, when set, is served on a loopback test server for the
	// duration of the run (an app checked in process).
	Handler http.Handler

	// Auth is the id of the authentication the account belongs to; empty
	// picks one as appkit sync does: the only one the descriptor declares,
	// else "none" when declared, else the first that is not OAuth.
	Auth string
	// Account holds the values of the authentication's fields by field id.
	// Without it, an authentication that takes no values (no fields, or
	// only links and optional ones; "none") is validated with an empty
	// account, as appkit sync validates it; for another (OAuth, or one with
	// a field to fill), checks that need a valid account are skipped.
	Account map[string]any
	// Filter holds filter values by filter id, in their wire form (a date
	// filter as {"_min": ..., "_max": ...}).
	Filter map[string]any
	// Types restricts the synchronized types; empty means every type of the
	// config answer.
	Types []string

	// Timeout bounds each request; a request without an answer by then
	// fails transport.answers and the suite goes on. 0 means
	// [DefaultTimeout].
	Timeout time.Duration
	// SlowAfter is the slow-answer bound: slower answers are flagged in the
	// latency report and warned about. 0 means [DefaultSlowAfter].
	SlowAfter time.Duration
	// MaxPages bounds the pages of one type's run; more means hasNext never
	// ends. 0 means [DefaultMaxPages].
	MaxPages int
	// RunTimeout bounds the wall time of one type's run. 0 means
	// [DefaultRunTimeout].
	RunTimeout time.Duration
	// MaxBody bounds the size of one answer in bytes. 0 means
	// [DefaultMaxBody].
	MaxBody int64
	// TotalTimeout bounds the wall time of the whole run: when it passes,
	// the run stops and [Run] returns the partial report with
	// [ErrTotalTimeout]. 0 means [DefaultTotalTimeout].
	TotalTimeout time.Duration
	// MaxTypes bounds the types whose schema and data a run checks (the
	// first ones of Types or of the config answer); the others are named
	// in one skipped result per data check. 0 means [DefaultMaxTypes].
	MaxTypes int
	// Progress, when set, is called as the run goes: at the start of each
	// stage and of each type's data, and after each result. It is called
	// from the goroutine running the suite, one call at a time, and should
	// return quickly.
	Progress func(Progress)
	// Client sends the requests; nil means a client without a global
	// timeout (Timeout applies per request) that does not follow redirects.
	Client *http.Client
}

// withDefaults fills the zero bounds and checks the rest.
func (c Config) withDefaults() (Config, error) {
	if (c.URL == "") == (c.Handler == nil) {
		return c, errors.New("conformance: set exactly one of Config.URL and Config.Handler")
	}
	if c.URL != "" {
		u, err := url.Parse(c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, fmt.Errorf("conformance: URL %q: want an absolute http or https address", c.URL)
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return c, fmt.Errorf("conformance: URL %q: want a base address without query or fragment", c.URL)
		}
		c.URL = strings.TrimRight(c.URL, "/")
	}
	c.Timeout = positiveOr(c.Timeout, DefaultTimeout)
	c.SlowAfter = positiveOr(c.SlowAfter, DefaultSlowAfter)
	c.MaxPages = positiveOr(c.MaxPages, DefaultMaxPages)
	c.RunTimeout = positiveOr(c.RunTimeout, DefaultRunTimeout)
	c.MaxBody = positiveOr(c.MaxBody, DefaultMaxBody)
	c.TotalTimeout = positiveOr(c.TotalTimeout, DefaultTotalTimeout)
	c.MaxTypes = positiveOr(c.MaxTypes, DefaultMaxTypes)
	if c.Client == nil {
		c.Client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	return c, nil
}

// positiveOr returns v, or def when v is zero or negative (a bound left
// unset).
func positiveOr[T ~int | ~int64](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Progress is one step of a run, given to [Config.Progress].
type Progress struct {
	// Stage is what the run does: "descriptor", "accounts", "sync" (config,
	// filters, datalists, schema), "data", "errors", "webhooks", "actions",
	// "transport" (the checks over every answer, at the end).
	Stage string
	// Type is the type whose pages the data stage walks now; Index is its
	// place (from 1) among Types types.
	Type         string
	Index, Types int
	// Result is a result just recorded; nil at the start of a stage or a
	// type.
	Result *Result
}
