package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// datalistView is the options of a list or multidropdown filter read from
// the app's datalist, with the form's choices.
type datalistView struct {
	Filter  protocol.Filter
	Options []datalistOption
	// Error says why the options could not be read; Missing names the
	// filters to fill first (datalist_requires).
	Error   string
	Missing []string
}

type datalistOption struct {
	Value, Title string
	Checked      bool
}

// datalists reads the options of every datalist filter with the account,
// the values of the filters each one requires taken from the form.
func (c *Console) datalists(r *http.Request, accountID string, cfg *protocol.ConfigResponse, types []string, form url.Values) map[string]*datalistView {
	out := map[string]*datalistView{}
	var wire map[string]json.RawMessage
	for _, f := range cfg.Filters {
		if f.Datalist && (f.Type == "list" || f.Type == "multidropdown") {
			if wire == nil {
				wire = wireFilter(cfg.Filters, form, nil)
			}
			out[f.ID] = c.datalist(r, accountID, f, types, form, wire)
		}
	}
	return out
}

// datalist reads the options of the datalist filter f with the account;
// wire holds the form's filter values as the app receives them (wireFilter),
// those f requires among them.
func (c *Console) datalist(r *http.Request, accountID string, f protocol.Filter, types []string, form url.Values, wire map[string]json.RawMessage) *datalistView {
	v := &datalistView{Filter: f}
	deps := map[string]any{}
	for _, id := range f.DatalistRequires {
		raw, ok := wire[id]
		if !ok {
			v.Missing = append(v.Missing, id)
			continue
		}
		deps[id] = raw
	}
	if len(v.Missing) > 0 {
		return v
	}
	items, err := c.cfg.Apps.Datalist(r.Context(), accountID, f.ID, types, deps)
	if err != nil {
		msg, _, ok := serviceMessage(r.Context(), err)
		if !ok {
			c.cfg.OnError(r, err)
			msg = "internal error"
		}
		v.Error = msg
		return v
	}
	chosen := map[string]bool{}
	for _, s := range form["filter."+f.ID] {
		for _, p := range strings.Split(s, ",") {
			chosen[strings.TrimSpace(p)] = true
		}
	}
	for _, it := range items {
		val := fmt.Sprint(it.Value)
		v.Options = append(v.Options, datalistOption{Value: val, Title: it.Title, Checked: chosen[val]})
	}
	return v
}

// datalistFragment re-reads one filter's options (htmx, when a filter it
// requires changes).
func (c *Console) datalistFragment(w http.ResponseWriter, r *http.Request) error {
	_, cfg, err := byPath(c, r, configOf)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	i := slices.IndexFunc(cfg.Filters, func(f protocol.Filter) bool { return f.ID == q.Get("field") && f.Datalist })
	if i < 0 {
		return &pageError{Status: http.StatusNotFound, Title: "No such filter", Message: "The app has no datalist filter " + q.Get("field") + "."}
	}
	return datalistFrag.show(c, w, r, http.StatusOK, layout{}, c.datalist(r, r.PathValue("id"), cfg.Filters[i], q["types"], q, wireFilter(cfg.Filters, q, nil)))
}
