package syncer

import (
	"cmp"
	"errors"
	"time"

	"github.com/appkitgo/appkit/internal/problems"
)

// Defaults of [Options] that have no constant of their own elsewhere.
const (
	DefaultRequestTimeout = 60 * time.Second
	DefaultCommitItems    = 20000
	DefaultCommitEvery    = time.Second
)

// ErrOptions reports Options a run cannot start with (wrapped with every
// problem found).
var ErrOptions = errors.New("syncer: invalid options")

// WithDefaults returns a copy of o with every unset (zero) setting given
// its default: RequestTimeout, MaxBody, CommitItems, CommitEvery,
// MaxPages, MaxEmptyPages, MaxRunTime, Retry (DefaultRetry when its
// Attempts is 0), Now (time.Now) and Log (drops the messages). Set values
// are kept as they are, even invalid ones, for validate to refuse.
func (o Options) WithDefaults() Options {
	o.RequestTimeout = cmp.Or(o.RequestTimeout, DefaultRequestTimeout)
	o.MaxBody = cmp.Or(o.MaxBody, DefaultMaxBody)
	o.CommitItems = cmp.Or(o.CommitItems, DefaultCommitItems)
	o.CommitEvery = cmp.Or(o.CommitEvery, DefaultCommitEvery)
	o.MaxPages = cmp.Or(o.MaxPages, DefaultMaxPages)
	o.MaxEmptyPages = cmp.Or(o.MaxEmptyPages, DefaultMaxEmptyPages)
	o.MaxRunTime = cmp.Or(o.MaxRunTime, DefaultMaxRunTime)
	if o.Retry.Attempts == 0 {
		o.Retry = DefaultRetry
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = func(string) {}
	}
	return o
}

// validate checks Options after WithDefaults and reports every problem at
// once, wrapped in ErrOptions. (The app's address is checked by the
// client the engine makes from it.)
func (o Options) validate() error {
	var bad problems.List
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"RequestTimeout", o.RequestTimeout},
		{"CommitEvery", o.CommitEvery},
		{"MaxRunTime", o.MaxRunTime},
		{"Retry.Base", o.Retry.Base},
		{"Retry.Max", o.Retry.Max},
	} {
		if d.v < 0 {
			bad.Add("%s is %s, want 0 (the default) or more", d.name, d.v)
		}
	}
	for _, n := range []struct {
		name string
		v    int64
	}{
		{"MaxBody", o.MaxBody},
		{"CommitItems", int64(o.CommitItems)},
		{"MaxPages", int64(o.MaxPages)},
		{"MaxEmptyPages", int64(o.MaxEmptyPages)},
		{"Retry.Attempts", int64(o.Retry.Attempts)},
	} {
		if n.v < 0 {
			bad.Add("%s is %d, want 0 (the default) or more", n.name, n.v)
		}
	}
	if o.Space != "" && !ValidSpace(o.Space) {
		bad.Add("the space %q is not lower-case letters, digits and dashes (at most 60)", o.Space)
	}
	return bad.Err(ErrOptions)
}
