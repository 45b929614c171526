package console

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/store"
)

// actionData is the action screen's content.
type actionData struct {
	App      *apps.App
	Action   *protocol.Action
	Accounts []*apps.Account
	Result   *apps.ActionResult
	// Types are the store's databases, for the entity of text templates.
	Types []string
}

func (c *Console) loadAction(r *http.Request) (*actionData, error) {
	svc, a, err := c.pathApp(r)
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
	d := &actionData{App: a, Action: act, Accounts: accs}
	for _, t := range cat.Types {
		if t.Kind == store.KindDomain {
			d.Types = append(d.Types, t.Name)
		}
	}
	sort.Strings(d.Types)
	return d, nil
}

func (c *Console) actionForm(w http.ResponseWriter, r *http.Request) error {
	d, err := c.loadAction(r)
	if err != nil {
		return err
	}
	return c.render(w, r, http.StatusOK, "action", &page{Title: d.Action.Name, Nav: "apps", Data: d})
}

func (c *Console) runAction(w http.ResponseWriter, r *http.Request) error {
	d, err := c.loadAction(r)
	if err != nil {
		return err
	}
	fe := map[string]string{}
	account := r.PostForm.Get("account")
	found := false
	for _, acc := range d.Accounts {
		found = found || acc.ID == account
	}
	if !found {
		fe["account"] = "Pick an account of this app (connect one on the app's page first)."
	}
	args := map[string]any{}
	for _, arg := range d.Action.Args {
		if v := r.PostForm.Get("arg." + arg.ID); v != "" {
			args[arg.ID] = v
		}
	}
	var entity *apps.EntityRef
	et, eid := strings.TrimSpace(r.PostForm.Get("entity_type")), strings.TrimSpace(r.PostForm.Get("entity_id"))
	switch {
	case et != "" && !slices.Contains(d.Types, et):
		fe["entity_type"] = fmt.Sprintf("The store has no database %q.", et)
	case et != "" && eid != "":
		entity = &apps.EntityRef{Type: et, ID: eid}
	case et != "":
		fe["entity_id"] = "Give the entity's id too, or neither."
	case eid != "":
		fe["entity_type"] = "Give the entity's type too, or neither."
	}
	p := &page{Title: d.Action.Name, Nav: "apps", Data: d, Form: r.PostForm, FieldErrors: fe}
	if len(fe) > 0 {
		return c.render(w, r, http.StatusBadRequest, "action", p)
	}
	res, err := c.cfg.Apps.Actions.RunAction(r.Context(), apps.ActionRequest{App: d.App.ID, Account: account, Action: d.Action.Action, Args: args, Entity: entity})
	if err != nil {
		return onForm(r.Context(), err, func(status int, msg string) error {
			p.Error = msg
			return c.render(w, r, status, "action", p)
		})
	}
	d.Result = res
	p.Notice = "The app ran the action."
	return c.render(w, r, http.StatusOK, "action", p)
}
