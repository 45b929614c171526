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

type actionData struct {
	App      *apps.App
	Action   *protocol.Action
	Accounts []*apps.Account
	Result   *apps.ActionResult
	// Types are the store's databases, for the entity of text templates.
	Types []string
}

func (c *Console) loadAction(w http.ResponseWriter, r *http.Request) *actionData {
	svc, a, ok := c.pathApp(w, r)
	if !ok {
		return nil
	}
	var act *protocol.Action
	for i := range a.Descriptor.Actions {
		if a.Descriptor.Actions[i].Action == r.PathValue("action") {
			act = &a.Descriptor.Actions[i]
		}
	}
	if act == nil {
		c.render(w, r, http.StatusNotFound, "error", &page{Title: "No such action", Error: fmt.Sprintf("The app has no action %q.", r.PathValue("action"))})
		return nil
	}
	accs, err := svc.Registry.Accounts(r.Context(), a.ID)
	if err != nil {
		c.fail(w, r, err)
		return nil
	}
	cat, err := c.cfg.Store.Catalog(r.Context())
	if err != nil {
		c.internal(w, r, err)
		return nil
	}
	d := &actionData{App: a, Action: act, Accounts: accs}
	for _, t := range cat.Types {
		if t.Kind == store.KindDomain {
			d.Types = append(d.Types, t.Name)
		}
	}
	sort.Strings(d.Types)
	return d
}

func (c *Console) actionForm(w http.ResponseWriter, r *http.Request) {
	d := c.loadAction(w, r)
	if d == nil {
		return
	}
	c.render(w, r, http.StatusOK, "action", &page{Title: d.Action.Name, Nav: "apps", Data: d})
}

func (c *Console) runAction(w http.ResponseWriter, r *http.Request) {
	d := c.loadAction(w, r)
	if d == nil {
		return
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
		c.render(w, r, http.StatusBadRequest, "action", p)
		return
	}
	res, err := c.cfg.Apps.Actions.RunAction(r.Context(), apps.ActionRequest{App: d.App.ID, Account: account, Action: d.Action.Action, Args: args, Entity: entity})
	if err != nil {
		c.failWith(w, r, err, func(status int, msg string) {
			p.Error = msg
			c.render(w, r, status, "action", p)
		})
		return
	}
	d.Result = res
	p.Notice = "The app ran the action."
	c.render(w, r, http.StatusOK, "action", p)
}
