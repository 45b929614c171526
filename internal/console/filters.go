package console

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/daterange"
)

// maxStatement bounds a date statement the preview parses.
const maxStatement = 200

// maxDOMID bounds an app's id kept as it is in an element's id.
const maxDOMID = 64

// domID is the id, in the page, of an element named after an id the app
// chose (a filter's): the id itself when it is 1 to 64 ASCII letters,
// digits, "-" and "_", else "x" and 16 hex digits of its SHA-256. The
// page's htmx attributes name elements by CSS selectors built of these
// ids (hx-target="#ID-range", hx-trigger="change from:#filter-ID"), where
// a comma, "#", a space or a quote would change what the attribute
// selects or when it fires: an id "x,#main,#y" would swap the page's
// <main>, "a, every 1s" would call the app every second.
func domID(id string) string {
	if id != "" && len(id) <= maxDOMID && strings.IndexFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) < 0 {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "x" + hex.EncodeToString(sum[:8])
}

// rangeView is the date preview fragment's content.
type rangeView struct {
	Statement string
	Min, Max  string
	Problem   string
}

// dateRange parses ?value= (or the first filter.* parameter, as htmx sends
// the input's own name) with package daterange and shows _min and _max.
func (c *Console) dateRange(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	v := q.Get("value")
	if v == "" {
		for k, vs := range q {
			if strings.HasPrefix(k, "filter.") && len(vs) > 0 {
				v = vs[0]
				break
			}
		}
	}
	d := &rangeView{Statement: v}
	switch {
	case strings.TrimSpace(v) == "":
		d.Problem = "Type a statement such as “last 30 days” or “from 1 January 2024 to 31 March 2024”."
	case len(v) > maxStatement:
		d.Problem = "The statement is too long."
	default:
		rg, err := daterange.Parse(v, time.Now())
		if err != nil {
			d.Problem = err.Error()
			break
		}
		d.Min, d.Max = "open", "open"
		if rg.Min != nil {
			d.Min = rg.Min.UTC().Format(time.RFC3339Nano)
		}
		if rg.Max != nil {
			d.Max = rg.Max.UTC().Format(time.RFC3339Nano)
		}
	}
	return rangeFragment.show(c, w, r, http.StatusOK, layout{}, d)
}

// wireValue is a filter value in the wire form the app receives (what the
// sync engine sends for the same input): numbers, booleans, {_min, _max}
// for a date statement, a day for a datebox, a string for a list, an
// array for a multidropdown, text otherwise. Else it says what is wrong
// with the value, as the form shows it: not a number (Inf and NaN
// neither, which JSON cannot hold), a date statement longer than
// maxStatement or not one, not a day.
func wireValue(typ string, vals []string) (raw json.RawMessage, problem string) {
	one := vals[len(vals)-1]
	var v any = one
	switch typ {
	case "number":
		n, err := strconv.ParseFloat(strings.TrimSpace(one), 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, "Enter a number."
		}
		v = n
	case "bool":
		v = one == "true"
	case "date":
		if len(one) > maxStatement {
			return nil, "The statement is too long."
		}
		r, err := daterange.Parse(one, time.Now())
		if err == nil {
			raw, err = r.WireJSON()
		}
		if err != nil {
			return nil, "Not a date statement: " + err.Error()
		}
		return raw, ""
	case "datebox":
		d, err := daterange.ParseDay(one, time.Now())
		if err != nil {
			return nil, "Not a day: " + err.Error()
		}
		v = d.Format(time.DateOnly)
	case "multidropdown":
		items := []string{}
		for _, s := range vals {
			for _, p := range strings.Split(s, ",") {
				if p = strings.TrimSpace(p); p != "" {
					items = append(items, p)
				}
			}
		}
		v = items
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, "Not a value the app can receive: " + err.Error()
	}
	return raw, ""
}

// wireFilter turns the form's filter inputs into wire values; fe gets a
// message per refused input.
func wireFilter(filters []protocol.Filter, form url.Values, fe map[string]string) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, f := range filters {
		var vals []string
		for _, v := range form["filter."+f.ID] {
			if v = strings.TrimSpace(v); v != "" {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			continue
		}
		raw, problem := wireValue(f.Type, vals)
		if problem != "" {
			if fe != nil {
				fe["filter."+f.ID] = problem
			}
			continue
		}
		out[f.ID] = raw
	}
	return out
}
