package console

import (
	"context"
	"net/http"

	"github.com/appkitgo/appkit/internal/apps"
)

// syncFormView is the sync form's content: the account's setting (its
// app and the config the app answers for it) and the filters' options.
type syncFormView struct {
	*apps.AccountSetting
	Datalists map[string]*datalistView
}

// appSetting is the setting of the account id of the app a: the
// service's error as it is (an account of no app is a 404 by
// apps.HTTPStatus), a 400 for an account of another app (refused before
// any app is asked for its config).
func appSetting(ctx context.Context, svc *apps.Service, a *apps.App, id string) (*apps.AccountSetting, error) {
	acc, err := svc.Registry.Account(ctx, id)
	if err != nil {
		return nil, err
	}
	if acc.AppID != a.ID {
		return nil, &pageError{Status: http.StatusBadRequest, Title: "Wrong account", Message: "The account belongs to another app."}
	}
	return svc.Registry.Setting(ctx, acc.ID)
}

func (c *Console) newSyncPage(w http.ResponseWriter, r *http.Request) error {
	svc, a, err := byPath(c, r, appOf)
	if err != nil {
		return err
	}
	set, err := appSetting(r.Context(), svc, a, r.URL.Query().Get("account"))
	if err != nil {
		return err
	}
	return c.renderSyncForm(w, r, http.StatusOK, layout{}, set)
}

// renderSyncForm shows the sync form of an account's setting, as loaded
// by the handler (the types the config marks default checked unless l
// sends a form back).
func (c *Console) renderSyncForm(w http.ResponseWriter, r *http.Request, status int, l layout, set *apps.AccountSetting) error {
	if l.Form == nil {
		l.Form = map[string][]string{}
		for _, t := range set.Config.Types {
			if t.Default {
				l.Form["types"] = append(l.Form["types"], t.ID)
			}
		}
	}
	d := &syncFormView{AccountSetting: set, Datalists: c.datalists(r, set.Account.ID, set.Config, l.Form["types"], l.Form)}
	l.Title, l.Nav = "Set up a sync of "+set.App.Name, "apps"
	return syncFormScreen.show(c, w, r, status, l, d)
}

func (c *Console) createSync(w http.ResponseWriter, r *http.Request) error {
	svc, a, err := byPath(c, r, appOf)
	if err != nil {
		return err
	}
	set, err := appSetting(r.Context(), svc, a, r.PostForm.Get("account"))
	if err != nil {
		return err
	}
	f, err := parseSyncForm(r.PostForm, set.Config)
	if fe, ok := formProblems(err); ok {
		return c.renderSyncForm(w, r, http.StatusBadRequest, layout{FieldErrors: fe, Form: r.PostForm}, set)
	}
	sy, err := svc.SyncService.CreateSync(r.Context(), apps.SyncSpec{App: set.App.ID, Account: set.Account.ID, Types: f.Types, Filter: f.Filter, Every: &f.Every})
	if err != nil {
		return onForm(r.Context(), err, func(status int, msg string) error {
			return c.renderSyncForm(w, r, status, layout{Error: "The sync was not set up: " + msg, Form: r.PostForm}, set)
		})
	}
	return redirect(w, r, "/syncs/"+sy.ID)
}
