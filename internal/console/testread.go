package console

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/apps"
)

// testReadView is the test read page's content: the account's setting
// (its app and the config the app answers for it), the filters' options
// and the page read.
type testReadView struct {
	*apps.AccountSetting
	Datalists map[string]*datalistView
	// Type is the type read ("" before the first read).
	Type      string
	Exchanges []exchangeView
	Bad       int
}

// testRead shows the form, and with ?type= fetches one page of the type
// with the filter through the apps service, writing nothing to the store.
func (c *Console) testRead(w http.ResponseWriter, r *http.Request) error {
	svc, set, err := byPath(c, r, settingOf)
	if err != nil {
		return err
	}
	cfg, q := set.Config, r.URL.Query()
	d := &testReadView{AccountSetting: set, Type: q.Get("type")}
	l := layout{Title: "Test read of " + set.App.Name, Nav: "apps", Form: q, FieldErrors: map[string]string{}}
	status := http.StatusOK
	if d.Type != "" {
		if !slices.ContainsFunc(cfg.Types, func(t protocol.TypeDescriptor) bool { return t.ID == d.Type }) {
			l.FieldErrors["type"] = fmt.Sprintf("The app has no type %q.", d.Type)
		}
		filter := wireFilter(cfg.Filters, q, l.FieldErrors)
		if len(l.FieldErrors) == 0 {
			res, err := svc.TestRead(r.Context(), set.Account.ID, d.Type, filter)
			if err != nil {
				msg, st, ok := serviceMessage(r.Context(), err)
				if !ok {
					return err
				}
				l.Error, status = msg, st
			} else {
				d.Exchanges = checkExchanges(res.Exchanges)
				d.Bad = badItems(d.Exchanges)
			}
		} else {
			status = http.StatusBadRequest
		}
	}
	var types []string
	if d.Type != "" {
		types = []string{d.Type}
	}
	d.Datalists = c.datalists(r, set.Account.ID, cfg, types, q)
	return testReadScreen.show(c, w, r, status, l, d)
}
