// Package brokenapp is a small app of the protocol written with net/http
// alone (no appkit), correct in every respect the conformance suite checks,
// that can be built with exactly one rule broken. The suite's tests run it
// once intact (everything passes) and once per [Break] (the check meant for
// that rule fails, and no other).
//
// The app: token authentication (token [Token]) and OAuth 2; types project
// (5 items, pages of 2) and task (7 items, pages of 3, delta when
// lastSynchronizedAt is set) with a many-to-one relation from task to
// project; filters projects (datalist), tags (datalist depending on
// projects) and due (date); webhooks; one action "notify" with one argument.
package brokenapp

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// Break names the one rule an app breaks; "" breaks none.
type Break string

// The breaks, each a deviation from the protocol in one place.
const (
	None                   Break = ""
	WrongContentType       Break = "data answers text/plain"
	MissingIDField         Break = "task schema without an id field"
	RelationOnBothSides    Break = "relation declared on task and on project"
	RelationUnknownTarget  Break = "relation to an undeclared type"
	UnknownSubType         Break = "a schema field with an unknown subType"
	LoopingCursor          Break = "task cursor repeats"
	RepeatedPage           Break = "task pages repeat the first page's ids with fresh cursors"
	EndlessHasNext         Break = "project pages never end"
	ObjectlessCursor       Break = "nextPageConfig is a string"
	Status500Not401        Break = "invalid token answers 500"
	GarbageAccepted        Break = "any token validates"
	UnknownAuthAccepted    Break = "unknown authentication id validates"
	OAuthGarbageAccepted   Break = "any OAuth 2 access token validates"
	ValidateWithoutName    Break = "validate answers without name"
	HTMLErrors             Break = "errors are HTML pages"
	WrongItemType          Break = "task priority is a string"
	BadDay                 Break = "task due is not YYYY-MM-DD"
	MissingItemID          Break = "a task without id"
	DuplicateIDs           Break = "the same task id on two pages"
	ExtraItemKeys          Break = "items carry undeclared keys"
	Nondeterministic       Break = "ids differ between runs"
	DeltaWithoutAction     Break = "delta items without __syncAction"
	BadSyncType            Break = "synchronizationType incremental"
	LogoPNG                Break = "logo is image/png"
	SourcesNotEmpty        Break = "sources is not empty"
	MissingWebsite         Break = "descriptor without website"
	AuthFieldWithoutName   Break = "auth field without name"
	TwoOAuth2              Break = "two OAuth 2 authentications"
	ActionArgTextarea      Break = "action argument of type textarea"
	AutomationsNoActions   Break = "automations without actions"
	HighlightNoEditorMode  Break = "highlightText filter without editorMode"
	DatalistIgnoresField   Break = "datalist ignores field"
	DependentDatalistShape Break = "dependent datalist items without title"
	FilterValidateLax      Break = "filter/validate accepts anything"
	FilterValidate500      Break = "filter/validate refuses a valid filter"
	MalformedBody500       Break = "a malformed body answers 500"
	UnknownTypeAccepted    Break = "data for an unknown type answers 200"
	MissingFieldAccepted   Break = "a body without requestedType answers 200"
	SchemaUnknownType      Break = "schema answers for an unknown type"
	ConfigWithoutTypes     Break = "config without types"
	OAuthStateDropped      Break = "OAuth 2 redirect_uri without the state"
	WebhookWithoutID       Break = "webhook install answers without id"
	WebhookDelete500       Break = "webhook delete fails"
	TransformWithoutAction Break = "transform items without __syncAction"
	ActionArgsIgnored      Break = "action runs without its arguments"
	UnknownActionAccepted  Break = "unknown action answers 200"
	HangingData            Break = "project page 2 never answers"
	SlowLogo               Break = "logo answers slowly"
	ErrorTryLaterString    Break = "an error's tryLater is a string"
	BooleanAsJSON          Break = "a boolean text value sent as JSON true"
	DeltaUndeclared        Break = "delta pages of a type whose schema lacks __syncAction"
	Status403Not401        Break = "invalid token answers 403"
	MalformedBodyHTML      Break = "a malformed body answers an HTML page"
	FilterInvalid422       Break = "filter/validate refuses an invalid filter with 422"
	WebhookDelete202       Break = "webhook delete answers 202"
	WebhookInstall500      Break = "webhook install fails"
	DatalistTextPlain      Break = "datalist answers text/plain"
	DuplicateAuthFieldIDs  Break = "two auth fields with one id"
	DuplicateFilterIDs     Break = "two filters with one id"
	RemoveInFullPage       Break = "a REMOVE item in a full page"

	// LocaleDates and MarkdownLines send values the host converts (a
	// warning naming the conversion): a month-first locale date-time in
	// a date field, an array of strings in a Markdown field.
	LocaleDates   Break = "a task date as a locale date-time"
	MarkdownLines Break = "task notes as an array of lines"

	// PublicAuth breaks nothing: the app's authentications are OAuth 2
	// and "public", without fields (fields: []), whose empty account
	// reads every synchronizer endpoint and runs the action.
	// PublicAuthNoFields is the same with no fields key at all.
	PublicAuth         Break = "an authentication without fields"
	PublicAuthNoFields Break = "an authentication without a fields key"

	// LogoNotServed breaks nothing: /logo is optional, and a plain 404
	// page says it is not served.
	LogoNotServed Break = "logo answers a plain 404"

	// GarbageTryLater breaks nothing: garbage values are answered 503
	// tryLater, as an app whose upstream they cannot reach may answer.
	GarbageTryLater Break = "invalid token answers 503 tryLater"

	// LinkOnlyAuth breaks nothing: a third authentication, "public", has
	// only a link field (no value to check), and validates whatever comes.
	LinkOnlyAuth Break = "an authentication with only a link field"

	// ValidateTryLater breaks nothing: the good account is answered 503
	// tryLater (its provider is down), so nothing that needs it can run.
	ValidateTryLater Break = "the good account answers 503 tryLater"

	// TryLaterOnce breaks nothing: the second task page asks once to be
	// retried later (503 tryLater, Retry-After: 0), as an app may when
	// its provider limits its rate.
	TryLaterOnce Break = "task page 2 asks once to retry later"
)

// Token is the valid account token; AccessToken the valid OAuth 2 one.
const (
	Token       = "tok-3f9a2c81"
	AccessToken = "acc-77b1e0d4"
)

// New returns the app with brk broken.
func New(brk Break) http.Handler {
	a := &app{brk: brk}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", a.descriptor)
	mux.HandleFunc("GET /logo", a.logo)
	mux.HandleFunc("POST /validate", a.validate)
	mux.HandleFunc("POST /oauth2/v1/authorize", a.authorize)
	mux.HandleFunc("POST /api/v1/synchronizer/config", a.config)
	mux.HandleFunc("POST /api/v1/synchronizer/schema", a.schema)
	mux.HandleFunc("POST /api/v1/synchronizer/data", a.data)
	mux.HandleFunc("POST /api/v1/synchronizer/datalist", a.datalist)
	mux.HandleFunc("POST /api/v1/synchronizer/filter/validate", a.filterValidate)
	mux.HandleFunc("POST /api/v1/synchronizer/webhooks", a.webhookInstall)
	mux.HandleFunc("DELETE /api/v1/synchronizer/webhooks", a.webhookDelete)
	mux.HandleFunc("POST /api/v1/synchronizer/webhooks/verify", a.webhookVerify)
	mux.HandleFunc("POST /api/v1/synchronizer/webhooks/transform", a.webhookTransform)
	mux.HandleFunc("POST /api/v1/automations/action/execute", a.execute)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { a.error(w, http.StatusNotFound, "not found") })
	return mux
}

type app struct {
	brk     Break
	runs    atomic.Int64 // first pages served, for Nondeterministic
	retried atomic.Bool  // TryLaterOnce asked for its retry
}

type obj = map[string]any

func (a *app) json(w http.ResponseWriter, status int, v any) {
	ct := "application/json"
	if a.brk == WrongContentType && status == http.StatusOK {
		if _, isData := v.(dataPage); isData {
			ct = "text/plain"
		}
	}
	if a.brk == DatalistTextPlain && status == http.StatusOK {
		if _, isList := v.(datalistAnswer); isList {
			ct = "text/plain"
		}
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (a *app) error(w http.ResponseWriter, status int, msg string) {
	if a.brk == HTMLErrors {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		fmt.Fprintf(w, "<html><body><h1>%d</h1><p>%s</p></body></html>", status, msg)
		return
	}
	if a.brk == ErrorTryLaterString {
		a.json(w, status, obj{"message": msg, "tryLater": "yes"})
		return
	}
	a.json(w, status, obj{"message": msg})
}

// decode reads a JSON body; false after answering 400 (or 500 when
// broken so).
func (a *app) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		status := http.StatusBadRequest
		switch a.brk {
		case MalformedBody500:
			status = http.StatusInternalServerError
		case MalformedBodyHTML:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, "<html><h1>400 Bad Request</h1></html>")
			return false
		}
		a.error(w, status, "malformed JSON body: "+err.Error())
		return false
	}
	return true
}

func (a *app) descriptor(w http.ResponseWriter, _ *http.Request) {
	tokenField := obj{"id": "token", "name": "Token", "type": "password", "description": "The account's token"}
	if a.brk == AuthFieldWithoutName {
		delete(tokenField, "name")
	}
	help := obj{"id": "help", "name": "Help", "type": "link", "description": "Where to get a token", "value": "https://example.com/help"}
	if a.brk == DuplicateAuthFieldIDs {
		help["id"] = "token"
	}
	auths := []any{
		obj{"id": "token", "name": "Token", "description": "A token", "fields": []any{tokenField, help}},
		obj{"id": "oauth2", "name": "Sign in", "fields": []any{}},
	}
	switch a.brk {
	case PublicAuth:
		auths = []any{auths[1], obj{"id": "public", "name": "Public data", "fields": []any{}}}
	case PublicAuthNoFields:
		auths = []any{auths[1], obj{"id": "public", "name": "Public data"}}
	}
	if a.brk == TwoOAuth2 {
		auths = append(auths, obj{"id": "oauth2", "name": "Sign in again"})
	}
	if a.brk == LinkOnlyAuth {
		auths = append(auths, obj{"id": "public", "name": "Public data", "fields": []any{
			obj{"id": "about", "name": "About", "type": "link", "description": "What is public", "value": "https://example.com/public"}}})
	}
	argType := "textArea"
	if a.brk == ActionArgTextarea {
		argType = "textarea"
	}
	actions := []any{obj{"action": "notify", "name": "Notify", "args": []any{obj{"id": "text", "name": "Text", "type": argType}}}}
	if a.brk == AutomationsNoActions {
		actions = []any{}
	}
	d := obj{
		"id": "broken", "type": "custom", "name": "Broken", "version": "1", "description": "A test app",
		"website": "https://example.com", "authentication": auths, "sources": []any{},
		"responsibleFor": obj{"dataSynchronization": true, "automations": true}, "actions": actions,
	}
	if a.brk == SourcesNotEmpty {
		d["sources"] = []any{"x"}
	}
	if a.brk == MissingWebsite {
		delete(d, "website")
	}
	a.json(w, http.StatusOK, d)
}

func (a *app) logo(w http.ResponseWriter, r *http.Request) {
	if a.brk == LogoNotServed {
		http.NotFound(w, r)
		return
	}
	if a.brk == LogoPNG {
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write([]byte("\x89PNG"))
		return
	}
	if a.brk == SlowLogo {
		select {
		case <-time.After(50 * time.Millisecond):
		case <-r.Context().Done():
		}
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	_, _ = io.WriteString(w, `<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>`)
}

func (a *app) validate(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ID     *string `json:"id"`
		Fields obj     `json:"fields"`
	}
	if !a.decode(w, r, &in) {
		return
	}
	switch {
	case in.ID == nil:
		a.error(w, http.StatusBadRequest, "id is required")
	case *in.ID == "public" && a.public():
		a.json(w, http.StatusOK, obj{"name": "Public"})
	case *in.ID != "token" && *in.ID != "oauth2":
		if a.brk == UnknownAuthAccepted {
			a.json(w, http.StatusOK, obj{"name": "Anyone"})
			return
		}
		a.error(w, http.StatusUnauthorized, "unknown authentication")
	case *in.ID == "token" && in.Fields["token"] != Token && a.brk != GarbageAccepted:
		status := http.StatusUnauthorized
		switch a.brk {
		case Status500Not401:
			status = http.StatusInternalServerError
		case Status403Not401:
			status = http.StatusForbidden
		case GarbageTryLater:
			a.json(w, http.StatusServiceUnavailable, obj{"message": "the provider is unreachable", "tryLater": true})
			return
		}
		a.error(w, status, "invalid token")
	case *in.ID == "oauth2" && in.Fields["access_token"] != AccessToken && a.brk != OAuthGarbageAccepted:
		a.error(w, http.StatusUnauthorized, "invalid access token")
	case a.brk == ValidateTryLater:
		a.json(w, http.StatusServiceUnavailable, obj{"message": "the provider is down", "tryLater": true})
	case a.brk == ValidateWithoutName:
		a.json(w, http.StatusOK, obj{"account": in.Fields["token"]})
	default:
		a.json(w, http.StatusOK, obj{"name": "Good account"})
	}
}

func (a *app) authorize(w http.ResponseWriter, r *http.Request) {
	var in struct {
		CallbackURI string `json:"callback_uri"`
		State       string `json:"state"`
	}
	if !a.decode(w, r, &in) {
		return
	}
	q := url.Values{"client_id": {"broken"}, "redirect_uri": {in.CallbackURI}, "state": {in.State}}
	if a.brk == OAuthStateDropped {
		q.Del("state")
	}
	a.json(w, http.StatusOK, obj{"redirect_uri": "https://provider.example.com/authorize?" + q.Encode()})
}

// public reports whether the app declares the authentication "public".
func (a *app) public() bool {
	return a.brk == LinkOnlyAuth || a.brk == PublicAuth || a.brk == PublicAuthNoFields
}

// account checks the account of a synchronizer or action request.
func (a *app) account(w http.ResponseWriter, acct obj) bool {
	if acct["auth"] == "public" && a.public() {
		return true
	}
	if acct["token"] != Token {
		a.error(w, http.StatusUnauthorized, "invalid account")
		return false
	}
	return true
}

func (a *app) config(w http.ResponseWriter, r *http.Request) {
	var in struct{ Account obj }
	if !a.decode(w, r, &in) || !a.account(w, in.Account) {
		return
	}
	q := obj{"id": "q", "title": "Query", "type": "highlightText", "editorMode": "json", "optional": true}
	if a.brk == HighlightNoEditorMode {
		delete(q, "editorMode")
	}
	c := obj{
		"types": []any{obj{"id": "project", "name": "Projects"}, obj{"id": "task", "name": "Tasks"}},
		"filters": []any{
			obj{"id": "projects", "title": "Projects", "type": "multidropdown", "datalist": true, "optional": true},
			obj{"id": "tags", "title": "Tags", "type": "multidropdown", "datalist": true, "datalist_requires": []any{"projects"}, "optional": true},
			obj{"id": "due", "title": "Due", "type": "date", "optional": true},
			q,
		},
		"webhooks": obj{"enabled": true},
	}
	if a.brk == ConfigWithoutTypes {
		delete(c, "types")
	}
	if a.brk == DuplicateFilterIDs {
		c["filters"] = append(c["filters"].([]any), obj{"id": "due", "title": "Due again", "type": "date", "optional": true})
	}
	a.json(w, http.StatusOK, c)
}

func (a *app) schemaOf(t string) obj {
	switch t {
	case "project":
		s := obj{
			"id":   obj{"id": "id", "name": "ID", "type": "id"},
			"name": obj{"id": "name", "name": "Name", "type": "text"},
			"url":  obj{"id": "url", "name": "URL", "type": "text", "subType": "url"},
		}
		if a.brk == RelationOnBothSides {
			s["tasks"] = obj{"id": "tasks", "name": "Tasks", "type": "array[text]", "relation": obj{
				"cardinality": "many-to-many", "name": "Tasks", "targetType": "task", "targetName": "Project", "targetFieldId": "id"}}
		}
		return s
	case "task":
		s := obj{
			"id":           obj{"id": "id", "name": "ID", "type": "id"},
			"name":         obj{"id": "name", "name": "Title", "type": "text"},
			"priority":     obj{"id": "priority", "name": "Priority", "type": "number", "subType": "integer"},
			"due":          obj{"id": "due", "name": "Due", "type": "date", "subType": "day"},
			"updated":      obj{"id": "updated", "name": "Updated", "type": "date"},
			"tags":         obj{"id": "tags", "name": "Tags", "type": "array[text]"},
			"notes":        obj{"id": "notes", "name": "Notes", "type": "text", "subType": "md"},
			"__syncAction": obj{"id": "__syncAction", "name": "Sync action", "type": "text", "ignore": true},
			"done":         obj{"id": "done", "name": "Done", "type": "text", "subType": "boolean"},
			"project": obj{"id": "project", "name": "Project", "type": "text", "relation": obj{
				"cardinality": "many-to-one", "name": "Project", "targetType": "project", "targetName": "Tasks", "targetFieldId": "id"}},
		}
		if a.brk == MissingIDField {
			delete(s, "id")
		}
		if a.brk == DeltaUndeclared {
			delete(s, "__syncAction")
		}
		if a.brk == RelationUnknownTarget {
			s["owner"] = obj{"id": "owner", "name": "Owner", "type": "text", "relation": obj{
				"cardinality": "many-to-one", "name": "Owner", "targetType": "user", "targetName": "Tasks", "targetFieldId": "id"}}
		}
		if a.brk == UnknownSubType {
			s["notes"] = obj{"id": "notes", "name": "Notes", "type": "text", "subType": "markdown"}
		}
		return s
	}
	return nil
}

func (a *app) schema(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Types   []string
		Account obj
	}
	if !a.decode(w, r, &in) || !a.account(w, in.Account) {
		return
	}
	if len(in.Types) == 0 {
		a.error(w, http.StatusBadRequest, "types is required")
		return
	}
	out := obj{}
	for _, t := range in.Types {
		s := a.schemaOf(t)
		if s == nil {
			if a.brk == SchemaUnknownType {
				s = obj{"id": obj{"name": "ID", "type": "id"}, "name": obj{"name": "Name", "type": "text"}}
			} else {
				a.error(w, http.StatusBadRequest, "unknown type "+t)
				return
			}
		}
		out[t] = s
	}
	a.json(w, http.StatusOK, out)
}

// datalistAnswer is the answer of datalist (a type of its own so that
// DatalistTextPlain can single it out).
type datalistAnswer obj

// dataPage is the answer of data (a type of its own so that
// WrongContentType can single it out).
type dataPage obj

func (a *app) data(w http.ResponseWriter, r *http.Request) {
	var in struct {
		RequestedType      *string
		Account            obj
		Pagination         *struct{ Offset int }
		LastSynchronizedAt *string
	}
	if !a.decode(w, r, &in) || !a.account(w, in.Account) {
		return
	}
	if in.RequestedType == nil {
		if a.brk == MissingFieldAccepted {
			a.json(w, http.StatusOK, dataPage{"items": []any{}, "synchronizationType": "full"})
			return
		}
		a.error(w, http.StatusBadRequest, "requestedType is required")
		return
	}
	offset := 0
	if in.Pagination != nil {
		offset = in.Pagination.Offset
	}
	var all []obj
	size := 2
	switch *in.RequestedType {
	case "project":
		if a.brk == HangingData && offset > 0 {
			<-r.Context().Done()
			return
		}
		for i := 1; i <= 5; i++ {
			all = append(all, obj{"id": fmt.Sprintf("p%d", i), "name": fmt.Sprintf("Project %d", i), "url": "https://example.com/p"})
		}
		if a.brk == EndlessHasNext {
			a.json(w, http.StatusOK, dataPage{"items": []any{}, "synchronizationType": "full",
				"pagination": obj{"hasNext": true, "nextPageConfig": obj{"offset": offset + 1}}})
			return
		}
	case "task":
		size = 3
		if a.brk == TryLaterOnce && offset > 0 && !a.retried.Swap(true) {
			w.Header().Set("Retry-After", "0")
			a.json(w, http.StatusServiceUnavailable, obj{"message": "rate limited", "tryLater": true})
			return
		}
		if in.LastSynchronizedAt != nil {
			a.delta(w)
			return
		}
		if offset == 0 {
			a.runs.Add(1)
		}
		for i := 1; i <= 7; i++ {
			it := obj{"id": fmt.Sprintf("t%d", i), "name": fmt.Sprintf("Task %d", i), "priority": i % 3,
				"due": fmt.Sprintf("2024-01-%02d", i), "updated": "2024-01-01T10:00:00Z", "tags": []any{"a"},
				"notes": "*hi*", "project": fmt.Sprintf("p%d", 1+i%5), "done": "yes"}
			switch {
			case a.brk == BooleanAsJSON && i == 3:
				it["done"] = true
			case a.brk == WrongItemType && i == 4:
				it["priority"] = "high"
			case a.brk == BadDay && i == 2:
				it["due"] = "2nd of January 2024"
			case a.brk == LocaleDates && i == 2:
				it["updated"] = "11/14/2023, 10:13 PM"
			case a.brk == MarkdownLines && i == 3:
				it["notes"] = []any{"*hi*", "and more"}
			case a.brk == MissingItemID && i == 6:
				delete(it, "id")
			case a.brk == DuplicateIDs && i == 5:
				it["id"] = "t1"
			case a.brk == ExtraItemKeys && i == 1:
				it["colour"] = "blue"
			case a.brk == Nondeterministic && i == 7:
				it["id"] = fmt.Sprintf("t7-%d", a.runs.Load())
			}
			all = append(all, it)
		}
	default:
		if a.brk == UnknownTypeAccepted {
			a.json(w, http.StatusOK, dataPage{"items": []any{}, "synchronizationType": "full"})
			return
		}
		a.error(w, http.StatusBadRequest, "unknown type "+*in.RequestedType)
		return
	}
	if a.brk == RepeatedPage && *in.RequestedType == "task" {
		// The query ignores the cursor, which moves on all the same:
		// every page is the first, and the run never ends.
		items := make([]any, 0, size)
		for _, it := range all[:size] {
			items = append(items, it)
		}
		a.json(w, http.StatusOK, dataPage{"items": items, "synchronizationType": "full",
			"pagination": obj{"hasNext": true, "nextPageConfig": obj{"offset": offset + size}}})
		return
	}
	end := min(offset+size, len(all))
	items := make([]any, 0, end-offset)
	for _, it := range all[offset:end] {
		items = append(items, it)
	}
	if a.brk == RemoveInFullPage && *in.RequestedType == "task" && offset == 0 {
		items = append(items, obj{"id": "t9", "__syncAction": "REMOVE"})
	}
	page := dataPage{"items": items, "synchronizationType": "full"}
	if end < len(all) {
		next := any(obj{"offset": end})
		switch {
		case a.brk == LoopingCursor && *in.RequestedType == "task":
			next = obj{"offset": size}
		case a.brk == ObjectlessCursor && *in.RequestedType == "project":
			next = fmt.Sprint(end)
		}
		page["pagination"] = obj{"hasNext": true, "nextPageConfig": next}
	} else {
		page["pagination"] = obj{"hasNext": false}
	}
	a.json(w, http.StatusOK, page)
}

// delta answers the changes of tasks: one update and one removal.
func (a *app) delta(w http.ResponseWriter) {
	set := obj{"id": "t1", "priority": 2, "__syncAction": "SET"}
	remove := obj{"id": "t9", "__syncAction": "REMOVE"}
	syncType := "delta"
	switch a.brk {
	case DeltaWithoutAction:
		delete(set, "__syncAction")
	case BadSyncType:
		syncType = "incremental"
	}
	a.json(w, http.StatusOK, dataPage{"items": []any{set, remove}, "synchronizationType": syncType, "pagination": obj{"hasNext": false}})
}

func (a *app) datalist(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Account   obj
		Field     *string
		DependsOn map[string]any
	}
	if !a.decode(w, r, &in) || !a.account(w, in.Account) {
		return
	}
	field := ""
	if in.Field != nil {
		field = *in.Field
	}
	if a.brk == DatalistIgnoresField && field != "" {
		field = "projects"
	}
	switch field {
	case "":
		a.error(w, http.StatusBadRequest, "field is required")
	case "projects":
		var items []any
		for i := 1; i <= 5; i++ {
			items = append(items, obj{"title": fmt.Sprintf("Project %d", i), "value": fmt.Sprintf("p%d", i)})
		}
		a.json(w, http.StatusOK, datalistAnswer{"items": items})
	case "tags":
		if _, ok := in.DependsOn["projects"]; !ok {
			a.error(w, http.StatusBadRequest, "tags depend on projects")
			return
		}
		tag := obj{"title": "Tag a", "value": "a"}
		if a.brk == DependentDatalistShape {
			delete(tag, "title")
		}
		a.json(w, http.StatusOK, datalistAnswer{"items": []any{tag}})
	default:
		a.error(w, http.StatusBadRequest, "no datalist "+field)
	}
}

func (a *app) filterValidate(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Account obj
		Filter  map[string]json.RawMessage
	}
	if !a.decode(w, r, &in) || !a.account(w, in.Account) {
		return
	}
	if a.brk == FilterValidate500 {
		a.error(w, http.StatusInternalServerError, "cannot validate")
		return
	}
	if raw, ok := in.Filter["due"]; ok && a.brk != FilterValidateLax {
		var d struct {
			Min *string `json:"_min"`
			Max *string `json:"_max"`
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			a.error(w, a.invalidFilterStatus(), "due: want {_min, _max}")
			return
		}
		for _, s := range []*string{d.Min, d.Max} {
			if s == nil {
				continue
			}
			if _, err := time.Parse("2006-01-02T15:04:05", strings.TrimSuffix(*s, ".999")); err != nil {
				a.error(w, a.invalidFilterStatus(), "due: not a date: "+*s)
				return
			}
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

// invalidFilterStatus is the status of a refused filter.
func (a *app) invalidFilterStatus() int {
	if a.brk == FilterInvalid422 {
		return http.StatusUnprocessableEntity
	}
	return http.StatusBadRequest
}

func (a *app) webhookInstall(w http.ResponseWriter, r *http.Request) {
	var in struct{ Account obj }
	if !a.decode(w, r, &in) || !a.account(w, in.Account) {
		return
	}
	if a.brk == WebhookInstall500 {
		a.error(w, http.StatusInternalServerError, "the provider refused the webhook")
		return
	}
	hook := obj{"id": "wh-1", "events": []any{"task"}}
	if a.brk == WebhookWithoutID {
		delete(hook, "id")
	}
	a.json(w, http.StatusOK, hook)
}

func (a *app) webhookDelete(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Account obj
		Webhook struct{ ID string }
	}
	if !a.decode(w, r, &in) || !a.account(w, in.Account) {
		return
	}
	if in.Webhook.ID != "wh-1" || a.brk == WebhookDelete500 {
		a.error(w, http.StatusInternalServerError, "no such webhook")
		return
	}
	if a.brk == WebhookDelete202 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *app) webhookVerify(w http.ResponseWriter, r *http.Request) {
	var in struct{ Params obj }
	if !a.decode(w, r, &in) {
		return
	}
	if in.Params["X-Signature"] != "ok" {
		a.error(w, http.StatusUnauthorized, "bad signature")
		return
	}
	a.json(w, http.StatusOK, obj{"id": "wh-1"})
}

func (a *app) webhookTransform(w http.ResponseWriter, r *http.Request) {
	var in struct{ Account obj }
	if !a.decode(w, r, &in) || !a.account(w, in.Account) {
		return
	}
	item := obj{"id": "t1", "name": "Task 1", "__syncAction": "SET"}
	if a.brk == TransformWithoutAction {
		delete(item, "__syncAction")
	}
	a.json(w, http.StatusOK, obj{"data": obj{"task": []any{item}}})
}

func (a *app) execute(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Action *struct {
			Action string
			Args   map[string]any
		}
		Account obj
	}
	if !a.decode(w, r, &in) {
		return
	}
	if in.Action == nil {
		a.error(w, http.StatusBadRequest, "action is required")
		return
	}
	if !a.account(w, in.Account) {
		return
	}
	if in.Action.Action != "notify" {
		if a.brk == UnknownActionAccepted {
			a.json(w, http.StatusOK, obj{})
			return
		}
		a.error(w, http.StatusBadRequest, "unknown action")
		return
	}
	if text, _ := in.Action.Args["text"].(string); text == "" && a.brk != ActionArgsIgnored {
		a.error(w, http.StatusBadRequest, "text is required")
		return
	}
	a.json(w, http.StatusOK, obj{})
}
