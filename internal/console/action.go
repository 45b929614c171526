package console

import (
	"fmt"
	"net/http"
	"sort"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/store"
)

// actionView is the action screen's content.
type actionView struct {
	App      *apps.App
	Action   *protocol.Action
	Accounts []*apps.Account
	Result   *apps.ActionResult
	// Calls are the calls the app made to its upstream API while running
	// the action (the result's), as an exchange shows them.
	Calls *exchangeView
	// Types are the store's databases, for the entity of text templates.
	Types []string
}

func (c *Console) loadAction(r *http.Request) (*actionView, error) {
	svc, a, err := byPath(c, r, appOf)
	if err != nil {
		return nil, err
	}
	var act *protocol.Action
	for i := range a.Descriptor.Actions {
		if a.Descriptor.Actions[i].Action == r.PathValue("action") {
			act = &a.Descriptor.Actions[i]
		}
	}
	if act == nil {
		return nil, &pageError{Status: http.StatusNotFound, Title: "No such action", Message: fmt.Sprintf("The app has no action %q.", r.PathValue("action"))}
	}
	accs, err := svc.Registry.Accounts(r.Context(), a.ID)
	if err != nil {
		return nil, err
	}
	cat, err := c.cfg.Store.Catalog(r.Context())
	if err != nil {
		return nil, fmt.Errorf("console: catalog: %w", err)
	}
	d := &actionView{App: a, Action: act, Accounts: accs}
	for _, t := range cat.Types {
		if t.Kind == store.KindDomain {
			d.Types = append(d.Types, t.Name)
		}
	}
	sort.Strings(d.Types)
	return d, nil
}

func (c *Console) actionPage(w http.ResponseWriter, r *http.Request) error {
	d, err := c.loadAction(r)
	if err != nil {
		return err
	}
	return actionScreen.show(c, w, r, http.StatusOK, layout{Title: d.Action.Name, Nav: "apps"}, d)
}

func (c *Console) runAction(w http.ResponseWriter, r *http.Request) error {
	d, err := c.loadAction(r)
	if err != nil {
		return err
	}
	f, err := parseActionForm(r.PostForm, d)
	l := layout{Title: d.Action.Name, Nav: "apps", Form: r.PostForm}
	if fe, ok := formProblems(err); ok {
		l.FieldErrors = fe
		return actionScreen.show(c, w, r, http.StatusBadRequest, l, d)
	}
	res, err := c.cfg.Apps.Actions.RunAction(r.Context(), apps.ActionRequest{App: d.App.ID, Account: f.Account, Action: d.Action.Action, Args: f.Args, Entity: f.Entity})
	if err != nil {
		return onForm(r.Context(), err, func(status int, msg string) error {
			l.Error = msg
			return actionScreen.show(c, w, r, status, l, d)
		})
	}
	d.Result = res
	d.Calls = actionCalls(res)
	l.Notice = "The app ran the action."
	return actionScreen.show(c, w, r, http.StatusOK, l, d)
}

// actionCalls shows an action's upstream calls as an exchange's.
func actionCalls(res *apps.ActionResult) *exchangeView {
	return &exchangeView{Exchange: apps.Exchange{UpstreamReport: res.UpstreamReport},
		Upstream: upstreamViews(res.Upstream)}
}
