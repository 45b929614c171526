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
	problems.NotNegative(&bad, "RequestTimeout", o.RequestTimeout)
	problems.NotNegative(&bad, "CommitEvery", o.CommitEvery)
	problems.NotNegative(&bad, "MaxRunTime", o.MaxRunTime)
	problems.NotNegative(&bad, "Retry.Base", o.Retry.Base)
	problems.NotNegative(&bad, "Retry.Max", o.Retry.Max)
	problems.NotNegative(&bad, "MaxBody", o.MaxBody)
	problems.NotNegative(&bad, "CommitItems", o.CommitItems)
	problems.NotNegative(&bad, "MaxPages", o.MaxPages)
	problems.NotNegative(&bad, "MaxEmptyPages", o.MaxEmptyPages)
	problems.NotNegative(&bad, "Retry.Attempts", o.Retry.Attempts)
	if o.Space != "" && !ValidSpace(o.Space) {
		bad.Add("the space %q is not lower-case letters, digits and dashes (at most 60)", o.Space)
	}
	return bad.Err(ErrOptions)
}
