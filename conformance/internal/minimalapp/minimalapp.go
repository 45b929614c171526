// Package minimalapp is an app of the custom-app protocol written with
// net/http and encoding/json alone, the way a developer who has read only
// the protocol would write it in any language: it does what the protocol
// requires and nothing of appkit's own choices. The conformance suite must
// find no failure in it (warnings are allowed: they are appkit's choices).
//
// What it serves: GET / (no id or type keys, which the protocol does not
// require), POST /validate (it looks at the token only, not at the
// authentication id), config, schema and data for two types (contact and
// company, a many-to-one relation between them, pages of 2 items with an
// offset cursor, always full), and one action. It leaves out everything
// optional: /logo, filters, filter/validate, datalists and webhooks answer
// the standard library's plain-text 404. Data for a type it does not know is
// an empty page, a malformed body gets a plain-text 400, and an action runs
// with whatever arguments it gets.
package minimalapp

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// Token is the one valid account token.
const Token = "minimal-4b1d"

type obj = map[string]any

// New returns the app's handler.
func New() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", descriptor)
	mux.HandleFunc("POST /validate", validate)
	mux.HandleFunc("POST /api/v1/synchronizer/config", withAccount(config))
	mux.HandleFunc("POST /api/v1/synchronizer/schema", withAccount(schema))
	mux.HandleFunc("POST /api/v1/synchronizer/data", withAccount(data))
	mux.HandleFunc("POST /api/v1/automations/action/execute", withAccount(execute))
	return mux
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, msg string) {
	reply(w, status, obj{"message": msg})
}

// request is the union of the keys the endpoints read.
type request struct {
	Fields        obj      `json:"fields"`
	Account       obj      `json:"account"`
	Types         []string `json:"types"`
	RequestedType string   `json:"requestedType"`
	Pagination    *struct {
		Offset int `json:"offset"`
	} `json:"pagination"`
	Action *struct {
		Action string         `json:"action"`
		Args   map[string]any `json:"args"`
	} `json:"action"`
}

func decode(w http.ResponseWriter, r *http.Request) (request, bool) {
	var in request
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil {
		// The service never sends a malformed body: a framework's plain
		// error page is enough.
		http.Error(w, "bad request", http.StatusBadRequest)
		return in, false
	}
	return in, true
}

func descriptor(w http.ResponseWriter, _ *http.Request) {
	reply(w, http.StatusOK, obj{
		"name": "Minimal", "version": "0.1", "description": "Contacts and companies", "website": "https://example.com",
		"authentication": []any{obj{"id": "token", "name": "Token", "fields": []any{
			obj{"id": "token", "name": "Token", "type": "password", "description": "Your token"}}}},
		"sources":        []any{},
		"responsibleFor": obj{"dataSynchronization": true, "automations": true},
		"actions": []any{obj{"action": "note", "name": "Write a note", "args": []any{
			obj{"id": "text", "name": "Text", "type": "text"}}}},
	})
}

func validate(w http.ResponseWriter, r *http.Request) {
	in, ok := decode(w, r)
	if !ok {
		return
	}
	if in.Fields["token"] != Token {
		fail(w, http.StatusUnauthorized, "invalid token")
		return
	}
	reply(w, http.StatusOK, obj{"name": "Minimal account"})
}

// withAccount refuses a request whose account does not hold the token.
func withAccount(h func(http.ResponseWriter, request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		in, ok := decode(w, r)
		if !ok {
			return
		}
		if in.Account["token"] != Token {
			fail(w, http.StatusUnauthorized, "invalid account")
			return
		}
		h(w, in)
	}
}

func config(w http.ResponseWriter, _ request) {
	reply(w, http.StatusOK, obj{"types": []any{obj{"id": "company", "name": "Companies"}, obj{"id": "contact", "name": "Contacts"}}})
}

var schemas = map[string]obj{
	"company": {
		"id":   obj{"name": "ID", "type": "id"},
		"name": obj{"name": "Name", "type": "text"},
	},
	"contact": {
		"id":    obj{"name": "ID", "type": "id"},
		"name":  obj{"name": "Name", "type": "text"},
		"email": obj{"name": "E-mail", "type": "text", "subType": "email"},
		"company": obj{"name": "Company", "type": "text", "relation": obj{
			"cardinality": "many-to-one", "name": "Company", "targetType": "company", "targetName": "Contacts", "targetFieldId": "id"}},
	},
}

func schema(w http.ResponseWriter, in request) {
	out := obj{}
	for _, t := range in.Types {
		if s, ok := schemas[t]; ok {
			out[t] = s
		}
	}
	reply(w, http.StatusOK, out)
}

func items(typ string) []any {
	var out []any
	switch typ {
	case "company":
		for i := 1; i <= 3; i++ {
			out = append(out, obj{"id": fmt.Sprintf("co%d", i), "name": fmt.Sprintf("Company %d", i)})
		}
	case "contact":
		for i := 1; i <= 5; i++ {
			out = append(out, obj{"id": fmt.Sprintf("ct%d", i), "name": fmt.Sprintf("Contact %d", i),
				"email": fmt.Sprintf("c%d@example.com", i), "company": fmt.Sprintf("co%d", 1+i%3)})
		}
	}
	return out
}

func data(w http.ResponseWriter, in request) {
	const size = 2
	all := items(in.RequestedType)
	offset := 0
	if in.Pagination != nil {
		offset = min(max(in.Pagination.Offset, 0), len(all))
	}
	end := min(offset+size, len(all))
	page := obj{"items": append([]any{}, all[offset:end]...), "synchronizationType": "full"}
	if end < len(all) {
		page["pagination"] = obj{"hasNext": true, "nextPageConfig": obj{"offset": end}}
	} else {
		page["pagination"] = obj{"hasNext": false}
	}
	reply(w, http.StatusOK, page)
}

func execute(w http.ResponseWriter, in request) {
	if in.Action == nil || in.Action.Action != "note" {
		fail(w, http.StatusBadRequest, "no such action")
		return
	}
	reply(w, http.StatusOK, obj{})
}
