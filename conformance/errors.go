package conformance

import (
	"context"
	"fmt"
	"net/http"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// provocation is a request a correct app refuses: a client's mistake.
type provocation struct {
	check string
	path  string
	body  any // []byte for a raw (malformed) body
}

// checkErrors sends client mistakes to the endpoints the app serves and
// expects error statuses (4xx).
func (r *runner) checkErrors(ctx context.Context) {
	malformed := []byte(`{"id": "token", "fields": {`)
	ps := []provocation{
		{CheckMalformedBody, protocol.PathValidate, malformed},
		{CheckMissingField, protocol.PathValidate, map[string]any{"fields": map[string]any{}}},
	}
	if r.syncServed() {
		acct := r.account
		ps = append(ps,
			provocation{CheckMalformedBody, protocol.PathData, []byte(`{"requestedType": [`)},
			provocation{CheckMalformedBody, protocol.PathSchema, []byte(`{"types": "`)},
			provocation{CheckMissingField, protocol.PathData, map[string]any{"account": acct, "types": r.syncTypes(), "pagination": nil}},
			provocation{CheckUnknownType, protocol.PathData, map[string]any{"requestedType": unknownID, "types": []string{unknownID}, "account": acct, "pagination": nil}},
		)
		if r.datalistFilter() != "" {
			ps = append(ps, provocation{CheckMissingField, protocol.PathDatalist, map[string]any{"account": acct, "types": r.syncTypes()}})
		}
	} else {
		r.skip(CheckUnknownType, "", "the app does not serve synchronization")
	}
	if len(r.desc.Actions) > 0 {
		ps = append(ps,
			provocation{CheckMalformedBody, protocol.PathActionExecute, []byte(`{"action": {"action": `)},
			provocation{CheckMissingField, protocol.PathActionExecute, map[string]any{"account": r.account}},
		)
	}
	serverErrors := map[string]string{}
	var order []string
	for _, p := range ps {
		a := r.provoke(ctx, p.path, p.body)
		subject := endpoint(http.MethodPost, p.path)
		if !r.expectError(p.check, subject, a) {
			continue
		}
		if _, seen := serverErrors[subject]; !seen {
			order = append(order, subject)
			serverErrors[subject] = ""
		}
		if a.status >= 500 && serverErrors[subject] == "" {
			serverErrors[subject] = fmt.Sprintf("%s answered %s", checkTitle(p.check), a.describe())
		}
	}
	for _, s := range order {
		if got := serverErrors[s]; got != "" {
			r.fail(CheckClientStatus, s, "4xx for a client's mistake", got)
		} else {
			r.pass(CheckClientStatus, s)
		}
	}
}

// checkTitle names what a provocation sent, for a report.
func checkTitle(id string) string {
	switch id {
	case CheckMalformedBody:
		return "a malformed body"
	case CheckMissingField:
		return "a body without a required field"
	case CheckUnknownType:
		return "an unknown type"
	}
	return id
}
