package devloop

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/appkitgo/appkit/conformance"
)

// CheckTimeout bounds the checks of one [Check].
const CheckTimeout = 30 * time.Second

// Check runs the conformance suite's fast subset on the app at url: the
// descriptor, account validation, config (filters, datalists) and schema
// checks; the run stops where the data pages would start. It returns the
// results of those checks (failed ones have Status conformance.Failed).
// account and filter are as in conformance.Config.
func Check(parent context.Context, url, auth string, account, filter map[string]any, types []string) ([]conformance.Result, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	cfg := conformance.Config{URL: url, Auth: auth, Account: account, Filter: filter, Types: types, TotalTimeout: CheckTimeout,
		Progress: func(p conformance.Progress) {
			if p.Result == nil && !fastStage[p.Stage] {
				cancel() // the data pages and the stages after them are not part of the subset
			}
		}}
	rep, err := conformance.Run(ctx, cfg)
	if err != nil && (parent.Err() != nil || !errors.Is(err, conformance.ErrStopped) || !errors.Is(err, context.Canceled)) {
		return nil, err
	}
	var out []conformance.Result
	for _, r := range rep.Results {
		if fastCheck(r.ID) {
			out = append(out, r)
		}
	}
	return out, nil
}

// fastStage are the conformance stages of the subset.
var fastStage = map[string]bool{"descriptor": true, "accounts": true, "sync": true}

// fastCheck says whether a check is one of the subset's.
func fastCheck(id string) bool {
	for _, p := range []string{"descriptor.", "accounts.validate", "sync.", "schema."} {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}
