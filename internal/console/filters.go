package console

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/appkitgo/appkit/daterange"
)

// maxStatement bounds a date statement the preview parses.
const maxStatement = 200

// filterProblem checks a filter value by the filter's type as the sync
// engine will read it: "" when it is fine.
func filterProblem(typ, v string) string {
	now := time.Now()
	switch typ {
	case "number":
		if _, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
			return "Enter a number."
		}
	case "date":
		if len(v) > maxStatement {
			return "The statement is too long."
		}
		if _, err := daterange.Parse(v, now); err != nil {
			return "Not a date statement: " + err.Error()
		}
	case "datebox":
		if _, err := daterange.ParseDay(v, now); err != nil {
			return "Not a day: " + err.Error()
		}
	}
	return ""
}

// rangeData is the date preview fragment's content.
type rangeData struct {
	Statement string
	Min, Max  string
	Problem   string
}

// dateRange parses ?value= (or the first filter.* parameter, as htmx sends
// the input's own name) with package daterange and shows _min and _max.
func (c *Console) dateRange(w http.ResponseWriter, r *http.Request) {
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
	d := &rangeData{Statement: v}
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
	c.render(w, r, http.StatusOK, "range_fragment", &page{Data: d})
}
