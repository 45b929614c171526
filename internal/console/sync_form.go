package console

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/apps"
)

// syncFormData is the sync form's content.
type syncFormData struct {
	App       *apps.App
	Account   *apps.Account
	Config    *protocol.ConfigResponse
	Datalists map[string]*datalistView
}

func (c *Console) syncForm(w http.ResponseWriter, r *http.Request) error {
	return c.showSyncForm(w, r, http.StatusOK, &page{}, r.URL.Query().Get("account"))
}

func (c *Console) showSyncForm(w http.ResponseWriter, r *http.Request, status int, p *page, accountID string) error {
	svc, a, err := c.pathApp(r)
	if err != nil {
		return err
	}
	acc, err := svc.Registry.Account(r.Context(), accountID)
	if err != nil {
		return err
	}
	if acc.AppID != a.ID {
		return &pageError{Status: http.StatusBadRequest, Title: "Wrong account", Message: "The account belongs to another app."}
	}
	cfg, err := svc.Registry.Config(r.Context(), acc.ID)
	if err != nil {
		return err
	}
	if p.Form == nil {
		p.Form = map[string][]string{}
		for _, t := range cfg.Types {
			if t.Default {
				p.Form["types"] = append(p.Form["types"], t.ID)
			}
		}
	}
	d := &syncFormData{App: a, Account: acc, Config: cfg, Datalists: c.datalists(r, acc.ID, cfg, p.Form["types"], p.Form)}
	p.Title, p.Nav, p.Data = "Set up a sync of "+a.Name, "apps", d
	return c.render(w, r, status, "syncform", p)
}

// syncFilter reads the filter inputs ("filter.ID") of the form; values are
// checked by type (the date grammar with package daterange).
func syncFilter(cfg *protocol.ConfigResponse, form map[string][]string, fe map[string]string) map[string][]string {
	out := map[string][]string{}
	for _, f := range cfg.Filters {
		var vals []string
		for _, v := range form["filter."+f.ID] {
			if v = strings.TrimSpace(v); v != "" {
				vals = append(vals, v)
			}
		}
		if f.Type == "bool" {
			if len(vals) == 0 {
				vals = []string{"false"}
			} else {
				vals = []string{"true"}
			}
		}
		if len(vals) == 0 {
			if !f.Optional && f.Type != "link" && f.Type != "oauth" {
				fe["filter."+f.ID] = "Required."
			}
			continue
		}
		if msg := filterProblem(f.Type, vals[len(vals)-1]); msg != "" {
			fe["filter."+f.ID] = msg
			continue
		}
		out[f.ID] = vals
	}
	return out
}

// everyProblem says what is wrong with a sync's schedule as typed in the
// form ("" when it is fine: a duration, or empty for runs on demand).
func everyProblem(every string) string {
	if every == "" {
		return ""
	}
	if _, err := apps.ParseEvery(every); err != nil {
		return "Enter a duration such as 15m or 1h, or leave it empty for runs on demand: " + err.Error()
	}
	return ""
}

func (c *Console) createSync(w http.ResponseWriter, r *http.Request) error {
	svc, a, err := c.pathApp(r)
	if err != nil {
		return err
	}
	accountID := r.PostForm.Get("account")
	acc, err := svc.Registry.Account(r.Context(), accountID)
	if err != nil || acc.AppID != a.ID {
		return &pageError{Status: http.StatusBadRequest, Title: "No such account", Message: "Pick an account of this app."}
	}
	cfg, err := svc.Registry.Config(r.Context(), acc.ID)
	if err != nil {
		return err
	}
	fe := map[string]string{}
	known := map[string]bool{}
	for _, t := range cfg.Types {
		known[t.ID] = true
	}
	types := r.PostForm["types"]
	for _, t := range types {
		if !known[t] {
			fe["types"] = fmt.Sprintf("The app has no type %q.", t)
		}
	}
	if len(types) == 0 {
		fe["types"] = "Pick at least one type."
	}
	filter := syncFilter(cfg, r.PostForm, fe)
	every := strings.TrimSpace(r.PostForm.Get("every"))
	if msg := everyProblem(every); msg != "" {
		fe["every"] = msg
	}
	if len(fe) > 0 {
		return c.showSyncForm(w, r, http.StatusBadRequest, &page{FieldErrors: fe, Form: r.PostForm}, acc.ID)
	}
	sy, err := svc.SyncService.CreateSync(r.Context(), apps.SyncSpec{App: a.ID, Account: acc.ID, Types: types, Filter: filter, Every: &every})
	if err != nil {
		return onForm(r.Context(), err, func(status int, msg string) error {
			return c.showSyncForm(w, r, status, &page{Error: "The sync was not set up: " + msg, Form: r.PostForm}, acc.ID)
		})
	}
	return redirect(w, r, "/syncs/"+sy.ID)
}
