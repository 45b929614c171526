package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/pagerules"
)

// exchangeView is one exchange of a run as the page shows it.
type exchangeView struct {
	apps.Exchange
	// N numbers the exchanges from 1.
	N int
	// Request and Response are the bodies pretty-printed (as kept when they
	// are not JSON, cut for instance).
	Request, Response string
	// Type is the requested type of a data call; Page its page number
	// within the type.
	Type string
	Page int
	// Items are the checked items of a data answer.
	Items []itemView
	// Problems are the page-level findings (rules about the page, or why
	// its items could not be checked).
	Problems []string
	// Bad counts the items with a finding.
	Bad int
	// Upstream are the calls the app made to its upstream API while
	// answering, their bodies pretty-printed.
	Upstream []upstreamView
}

// upstreamView is one call the app made to its upstream API, as the page
// shows it under its exchange.
type upstreamView struct {
	apps.UpstreamCall
	// Request and Response are the bodies pretty-printed (as kept when
	// they are not JSON).
	Request, Response string
}

// upstreamViews pretty-prints the bodies of an exchange's upstream calls.
func upstreamViews(calls []apps.UpstreamCall) []upstreamView {
	if len(calls) == 0 {
		return nil
	}
	out := make([]upstreamView, 0, len(calls))
	for _, u := range calls {
		out = append(out, upstreamView{UpstreamCall: u, Request: pretty(u.Request), Response: pretty(u.Response)})
	}
	return out
}

// itemView is one item of a data answer with its findings.
type itemView struct {
	ID       string
	Index    int
	Problems []pagerules.Violation
}

// badItems counts the items of the exchanges with a finding.
func badItems(exs []exchangeView) int {
	n := 0
	for _, ex := range exs {
		for _, it := range ex.Items {
			if len(it.Problems) > 0 {
				n++
			}
		}
	}
	return n
}

// pretty indents a JSON body; anything else is returned as it is.
func pretty(s string) string {
	if s == "" {
		return ""
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(s), "", "  "); err != nil {
		return s
	}
	return buf.String()
}

// checkExchanges pretty-prints the exchanges and checks every item of the
// data answers with the rules of internal/pagerules, against the schema the
// app answered in the run (else the one sent with the data request), run
// by run of each type as appkittest and conformance do.
func checkExchanges(list []apps.Exchange) []exchangeView {
	ck := &exchangeChecks{schemas: map[string]pagerules.Schema{}, runs: map[string]*pagerules.Run{}, pages: map[string]int{}}
	out := make([]exchangeView, 0, len(list))
	for i, ex := range list {
		v := exchangeView{Exchange: ex, N: i + 1, Request: pretty(ex.Request), Response: pretty(ex.Response), Upstream: upstreamViews(ex.Upstream)}
		switch {
		case strings.HasSuffix(ex.Path, protocol.PathSchema) && ex.Status == http.StatusOK:
			var s protocol.Schema
			if json.Unmarshal([]byte(ex.Response), &s) == nil {
				for typ, fields := range s {
					ck.schemas[typ] = pagerules.FromWire(fields)
				}
			}
		case strings.HasSuffix(ex.Path, protocol.PathData):
			ck.data(&v)
		}
		out = append(out, v)
	}
	return out
}

// exchangeChecks is what the checks carry from one exchange of a run to
// the next: the schemas the app answered, the run of pages of each type
// and the pages seen of each type.
type exchangeChecks struct {
	schemas map[string]pagerules.Schema
	runs    map[string]*pagerules.Run
	pages   map[string]int
}

// dataRequest is what the checks read of a data request.
type dataRequest struct {
	RequestedType string          `json:"requestedType"`
	Schema        protocol.Schema `json:"schema"`
}

// dataAnswer is what the checks read of a data answer.
type dataAnswer struct {
	Items               []json.RawMessage `json:"items"`
	SynchronizationType string            `json:"synchronizationType"`
	Pagination          *struct {
		HasNext        bool            `json:"hasNext"`
		NextPageConfig json.RawMessage `json:"nextPageConfig"`
	} `json:"pagination"`
}

// data checks the items of a data exchange, as the next page of its
// type's run; what cannot be checked is said in v.Problems.
func (ck *exchangeChecks) data(v *exchangeView) {
	req, ok := readDataRequest(v)
	if !ok {
		return
	}
	v.Type = req.RequestedType
	if v.Exchange.Status != http.StatusOK {
		return
	}
	schema, ok := ck.schemas[req.RequestedType]
	if fields, sent := req.Schema[req.RequestedType]; !ok && sent {
		schema, ok = pagerules.FromWire(fields), true
	}
	if !ok {
		v.Problems = append(v.Problems, fmt.Sprintf("No schema of type %q in this run: its items are not checked.", req.RequestedType))
		return
	}
	resp, cut, ok := readDataAnswer(v)
	if !ok {
		return
	}
	ck.pages[req.RequestedType]++
	v.Page = ck.pages[req.RequestedType]
	checkItems(v, ck.run(req.RequestedType, schema, cut), resp)
}

// run is the run of pages of typ that the next page continues: a page
// seen in part (cut) is checked on its own, since the run's pages before
// and after it cannot be compared with it.
func (ck *exchangeChecks) run(typ string, schema pagerules.Schema, cut bool) *pagerules.Run {
	if cut {
		delete(ck.runs, typ)
		return pagerules.NewRun(typ, schema)
	}
	rn := ck.runs[typ]
	if rn == nil {
		rn = pagerules.NewRun(typ, schema)
		ck.runs[typ] = rn
	}
	return rn
}

// readDataRequest reads the data request of v; false (with a problem)
// when not even its type can be read.
func readDataRequest(v *exchangeView) (dataRequest, bool) {
	var req dataRequest
	if err := json.Unmarshal([]byte(v.Exchange.Request), &req); err != nil {
		// A cut request (the schema it carries is long) still names its
		// type near the start.
		req.RequestedType = leadingString(v.Exchange.Request, "requestedType")
		if req.RequestedType == "" {
			v.Problems = append(v.Problems, "The request was not kept whole (cut at 16 KiB or not JSON): its items are not checked.")
			return req, false
		}
	}
	return req, true
}

// readDataAnswer reads the data answer of v: whole, or cut (the complete
// items at its start); false (with a problem) when no item can be read.
func readDataAnswer(v *exchangeView) (resp dataAnswer, cut, ok bool) {
	if err := json.Unmarshal([]byte(v.Exchange.Response), &resp); err == nil {
		return resp, false, true
	}
	resp.Items = leadingItems(v.Exchange.Response)
	if len(resp.Items) == 0 {
		v.Problems = append(v.Problems, "The answer was not kept whole (cut at 16 KiB or not JSON): its items are not checked.")
		return resp, false, false
	}
	v.Problems = append(v.Problems, fmt.Sprintf("The answer was kept cut at 16 KiB: its first %d items are checked, the rest and the page's cursor are not.", len(resp.Items)))
	return resp, true, true
}

// checkItems checks the answer's items as the next page of rn: the page's
// findings go to v.Problems, each item's to its itemView.
func checkItems(v *exchangeView, rn *pagerules.Run, resp dataAnswer) {
	hasNext, next := false, json.RawMessage(nil)
	if resp.Pagination != nil {
		hasNext, next = resp.Pagination.HasNext, resp.Pagination.NextPageConfig
	}
	items := make([]any, 0, len(resp.Items))
	for _, raw := range resp.Items {
		var it any
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		_ = dec.Decode(&it)
		items = append(items, it)
	}
	byIndex := map[int][]pagerules.Violation{}
	_, viols := rn.Page(items, resp.SynchronizationType, hasNext, next)
	for _, viol := range viols {
		if viol.Index < 0 {
			v.Problems = append(v.Problems, viol.Error())
			continue
		}
		byIndex[viol.Index] = append(byIndex[viol.Index], viol)
	}
	for i, it := range items {
		iv := itemView{Index: i, Problems: byIndex[i]}
		if m, ok := it.(map[string]any); ok {
			iv.ID, _ = m["id"].(string)
		}
		sort.SliceStable(iv.Problems, func(a, b int) bool { return iv.Problems[a].Field < iv.Problems[b].Field })
		if len(iv.Problems) > 0 {
			v.Bad++
		}
		v.Items = append(v.Items, iv)
	}
}

// leadingItems decodes the complete items at the start of a data answer
// that was cut: {"items":[ item, item, ... up to the first incomplete one.
func leadingItems(body string) []json.RawMessage {
	dec := json.NewDecoder(strings.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil
		}
		if key != "items" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
			continue
		}
		if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
			return nil
		}
		var out []json.RawMessage
		for dec.More() {
			var it json.RawMessage
			if dec.Decode(&it) != nil {
				break
			}
			out = append(out, it)
		}
		return out
	}
	return nil
}

// leadingString reads the string value of key among the top-level keys of
// a JSON object that may be cut, up to the first incomplete value.
func leadingString(body, key string) string {
	dec := json.NewDecoder(strings.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return ""
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return ""
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return ""
		}
		if k == key {
			var s string
			if json.Unmarshal(v, &s) != nil {
				return ""
			}
			return s
		}
	}
	return ""
}
