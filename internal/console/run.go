package console

import (
	"fmt"
	"net/http"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/syncer"
)

// runData is the run screen's content.
type runData struct {
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
	Values []valueView
}

// valueView is one field's values that did not come in their stated form,
// as the run page lists them.
type valueView struct {
	// Type is the app's type id.
	Type string
	*syncer.ValueReport
	// Outcome says what became of them in words: coerced, left empty.
	OutcomeText string
}

// outcomes reads the failed types and the value lines of a run's report.
func outcomes(rep *apps.RunReport) (failed []*syncer.TypeReport, values []valueView) {
	if rep == nil {
		return nil, nil
	}
	for _, t := range rep.Types {
		if t.Status == syncer.TypeFailed {
			failed = append(failed, t)
		}
		for _, v := range t.Values {
			text := v.Outcome
			switch v.Outcome {
			case syncer.ValueCoerced:
				text = "coerced"
			case syncer.ValueDropped:
				text = "left empty"
			}
			values = append(values, valueView{Type: t.Type, ValueReport: v, OutcomeText: text})
		}
	}
	return failed, values
}

func (c *Console) runPage(w http.ResponseWriter, r *http.Request) error {
	svc, err := c.service()
	if err != nil {
		return err
	}
	run, err := svc.SyncService.Run(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	sy, a, err := syncApp(r.Context(), svc, run.SyncID)
	if err != nil {
		return err
	}
	d := &runData{Run: run, Sync: sy, App: a, Exchanges: checkExchanges(run.Exchanges)}
	d.Bad = badItems(d.Exchanges)
	d.Failed, d.Values = outcomes(run.Report)
	return c.render(w, r, http.StatusOK, "run", &page{Title: fmt.Sprintf("Run %d of %s", run.Seq, a.Name), Nav: "apps", Data: d})
}
