package console

import (
	"net/http"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/apps"
)

// syncFormView is the sync form's content.
type syncFormView struct {
	App       *apps.App
	Account   *apps.Account
	Config    *protocol.ConfigResponse
	Datalists map[string]*datalistView
}

func (c *Console) newSyncPage(w http.ResponseWriter, r *http.Request) error {
	return c.showSyncForm(w, r, http.StatusOK, layout{}, r.URL.Query().Get("account"))
}

func (c *Console) showSyncForm(w http.ResponseWriter, r *http.Request, status int, l layout, accountID string) error {
	svc, a, err := byPath(c, r, appOf)
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
	if l.Form == nil {
		l.Form = map[string][]string{}
		for _, t := range cfg.Types {
			if t.Default {
				l.Form["types"] = append(l.Form["types"], t.ID)
			}
		}
	}
	d := &syncFormView{App: a, Account: acc, Config: cfg, Datalists: c.datalists(r, acc.ID, cfg, l.Form["types"], l.Form)}
	l.Title, l.Nav = "Set up a sync of "+a.Name, "apps"
	return syncFormScreen.show(c, w, r, status, l, d)
}

func (c *Console) createSync(w http.ResponseWriter, r *http.Request) error {
	svc, a, err := byPath(c, r, appOf)
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
	f, err := parseSyncForm(r.PostForm, cfg)
	if fe, ok := formProblems(err); ok {
		return c.showSyncForm(w, r, http.StatusBadRequest, layout{FieldErrors: fe, Form: r.PostForm}, acc.ID)
	}
	sy, err := svc.SyncService.CreateSync(r.Context(), apps.SyncSpec{App: a.ID, Account: acc.ID, Types: f.Types, Filter: f.Filter, Every: &f.Every})
	if err != nil {
		return onForm(r.Context(), err, func(status int, msg string) error {
			return c.showSyncForm(w, r, status, layout{Error: "The sync was not set up: " + msg, Form: r.PostForm}, acc.ID)
		})
	}
	return redirect(w, r, "/syncs/"+sy.ID)
}
