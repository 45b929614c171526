package console

import (
	"fmt"
	"net/http"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/syncer"
)

// runView is the run screen's content.
type runView struct {
	Run       *apps.Run
	Sync      *apps.Sync
	App       *apps.App
	Exchanges []exchangeView
	// Bad counts the items with a finding.
	Bad int
	// Failed are the types of the run that failed (each with its reason).
	Failed []*syncer.TypeReport
	// Values are the values converted or left empty, one line per type,
	// field and outcome.
	Values []valueLine
}

// valueLine is one field's values that did not come in their stated form,
// as the run page lists them.
type valueLine struct {
	// Type is the app's type id.
	Type string
	*syncer.ValueReport
}

// outcomes reads the failed types and the value lines of a run's report.
func outcomes(rep *apps.RunReport) (failed []*syncer.TypeReport, values []valueLine) {
	if rep == nil {
		return nil, nil
	}
	for _, t := range rep.Types {
		if t.Status == syncer.TypeFailed {
			failed = append(failed, t)
		}
		for _, v := range t.Values {
			values = append(values, valueLine{Type: t.Type, ValueReport: v})
		}
	}
	return failed, values
}

func (c *Console) runPage(w http.ResponseWriter, r *http.Request) error {
	svc, run, err := byPath(c, r, runOf)
	if err != nil {
		return err
	}
	sy, a, err := syncApp(r.Context(), svc, run.SyncID)
	if err != nil {
		return err
	}
	d := &runView{Run: run, Sync: sy, App: a, Exchanges: checkExchanges(run.Exchanges)}
	d.Bad = badItems(d.Exchanges)
	d.Failed, d.Values = outcomes(run.Report)
	return runScreen.show(c, w, r, http.StatusOK, layout{Title: fmt.Sprintf("Run %d of %s", run.Seq, a.Name), Nav: "apps"}, d)
}
