package console

import (
	"context"
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

// appAccount is the account id of the app a: the service's error as it
// is (an account of no app is a 404 by apps.HTTPStatus), a 400 for an
// account of another app.
func appAccount(ctx context.Context, svc *apps.Service, a *apps.App, id string) (*apps.Account, error) {
	acc, err := svc.Registry.Account(ctx, id)
	if err != nil {
		return nil, err
	}
	if acc.AppID != a.ID {
		return nil, &pageError{Status: http.StatusBadRequest, Title: "Wrong account", Message: "The account belongs to another app."}
	}
	return acc, nil
}

func (c *Console) newSyncPage(w http.ResponseWriter, r *http.Request) error {
	svc, a, err := byPath(c, r, appOf)
	if err != nil {
		return err
	}
	acc, err := appAccount(r.Context(), svc, a, r.URL.Query().Get("account"))
	if err != nil {
		return err
	}
	cfg, err := svc.Registry.Config(r.Context(), acc.ID)
	if err != nil {
		return err
	}
	return c.renderSyncForm(w, r, http.StatusOK, layout{}, a, acc, cfg)
}

// renderSyncForm shows the sync form of the account acc of the app a with
// the app's config cfg, as loaded by the handler (the types the config
// marks default checked unless l sends a form back).
func (c *Console) renderSyncForm(w http.ResponseWriter, r *http.Request, status int, l layout, a *apps.App, acc *apps.Account, cfg *protocol.ConfigResponse) error {
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
	acc, err := appAccount(r.Context(), svc, a, r.PostForm.Get("account"))
	if err != nil {
		return err
	}
	cfg, err := svc.Registry.Config(r.Context(), acc.ID)
	if err != nil {
		return err
	}
	f, err := parseSyncForm(r.PostForm, cfg)
	if fe, ok := formProblems(err); ok {
		return c.renderSyncForm(w, r, http.StatusBadRequest, layout{FieldErrors: fe, Form: r.PostForm}, a, acc, cfg)
	}
	sy, err := svc.SyncService.CreateSync(r.Context(), apps.SyncSpec{App: a.ID, Account: acc.ID, Types: f.Types, Filter: f.Filter, Every: &f.Every})
	if err != nil {
		return onForm(r.Context(), err, func(status int, msg string) error {
			return c.renderSyncForm(w, r, status, layout{Error: "The sync was not set up: " + msg, Form: r.PostForm}, a, acc, cfg)
		})
	}
	return redirect(w, r, "/syncs/"+sy.ID)
}
