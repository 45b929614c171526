package host

import (
	"context"
	"errors"
	"fmt"
	"html"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/htmlpage"
	"github.com/appkitgo/appkit/internal/httpjson"
)

// AppsConfig configures the apps service of the host: registered apps,
// their accounts, scheduled synchronizations, webhooks, actions and OAuth
// set-up (see internal/apps).
type AppsConfig struct {
	// Service is the apps service; nil leaves /api/apps unserved (404). The
	// caller runs its scheduler (Service.Scheduler.Schedule).
	Service *apps.Service
}

// Bounds of request bodies: a webhook event, any other /api/apps body.
const (
	maxEventBody = 1 << 20
	maxAppsBody  = 1 << 20
)

// readAppsJSON decodes a JSON object body of at most maxAppsBody bytes
// (action arguments may be long texts); it answers the error itself and
// reports whether to go on.
func readAppsJSON(w http.ResponseWriter, r *http.Request, v any) bool {
	return readJSON(w, r, v, maxAppsBody, false)
}

// mountApps mounts the apps API under /api/apps:
//
//	GET    /api/apps                      the registered apps
//	POST   /api/apps                      {url, adopt?} registers an app (201; again: its descriptor is read anew)
//	GET    /api/apps/{id}                 one app
//	DELETE /api/apps/{id}                 removes it, its syncs (webhooks deleted) and accounts
//	GET    /api/apps/accounts             ?app=ID: accounts (field keys only, never values)
//	POST   /api/apps/accounts             {app, auth?, fields} validated by the app, sealed (201)
//	GET    /api/apps/accounts/{id}
//	PATCH  /api/apps/accounts/{id}        {fields} merged (null removes), validated again
//	DELETE /api/apps/accounts/{id}        204; 409 while a sync uses it
//	GET    /api/apps/accounts/{id}/config the app's types, filters and webhook support, read with the account
//	POST   /api/apps/oauth/start          {app, auth?, account?} → {redirectUri, callbackUri}
//	GET    /api/apps/oauth/callback       the provider's redirect lands here (an HTML page; no token)
//	GET    /api/apps/syncs                ?app=ID
//	POST   /api/apps/syncs                {app, account, space?, adopt?, types?, filter?, every?} (201; due at once);
//	                                      any number per app, each in a space of its own (409: space in use)
//	GET    /api/apps/syncs/{id}
//	PATCH  /api/apps/syncs/{id}           {account?, types?, filter?, every?}; a new account, types or
//	                                      filter cancels the run in progress, and the sync runs again
//	DELETE /api/apps/syncs/{id}           {warnings}; the webhook is deleted at the app; a running
//	                                      run is cancelled first (409 only when its host still holds
//	                                      the sync after the lease's time)
//	POST   /api/apps/syncs/{id}/run       run now (202 with the run); body {full: true} (optional) asks for a
//	                                      full refresh: the run queued, or the one queued or paused (which
//	                                      starts over), is asked in full (409 while a run is in progress)
//	POST   /api/apps/syncs/{id}/cancel    cancels its run in progress, queued or paused (202 with the run;
//	                                      409 when there is none): a run that a host is running ends
//	                                      at that host's next lease renewal (within a third of the lease)
//	GET    /api/apps/syncs/{id}/runs      ?limit=N: the history, newest first
//	GET    /api/apps/runs/{id}            one run with its exchanges (secrets masked); its status is
//	                                      queued, running, succeeded, partial (some types failed, the
//	                                      others completed), failed, paused or cancelled, its report's
//	                                      types each with Status, Error and Values (syncer.TypeReport)
//	POST   /api/apps/actions              {app, account, action, args, entity?: {type, id}}
//	GET    /api/apps/actions              ?app=ID&limit=N: the app's action history, newest first (each run's
//	                                      rendered arguments, entity, the app's answer, duration, who ran it)
//	POST   /api/apps/events/{sync}        webhook events (no token: the app verifies them)
//
// Everything but the callback page and the event endpoint needs an API
// token, as /api/commands does; errors are {message}.
func (h *Host) mountApps(mux *http.ServeMux) {
	svc := h.cfg.Apps.Service
	if svc == nil {
		return
	}
	a := &appsAPI{h: h, svc: svc, registry: svc.Registry, syncs: svc.SyncService, hooks: svc.Webhooks, oauth: svc.OAuthSetup, actions: svc.Actions}
	tok := func(fn http.HandlerFunc) http.Handler { return h.withToken(fn) }
	mux.Handle("/api/apps", byMethod{"GET": tok(a.listApps), "POST": tok(onBody(a, http.StatusCreated, a.registry.Register))})
	mux.Handle("/api/apps/{id}", byMethod{"GET": tok(onID(a, http.StatusOK, a.registry.App)), "DELETE": tok(onDelete(a, a.svc.DeleteApp))})
	mux.Handle("/api/apps/accounts", byMethod{"GET": tok(onApp(a, a.registry.Accounts)), "POST": tok(a.createAccount)})
	mux.Handle("/api/apps/accounts/{id}", byMethod{"GET": tok(onID(a, http.StatusOK, a.registry.Account)), "PATCH": tok(a.updateAccount), "DELETE": tok(a.deleteAccount)})
	mux.Handle("/api/apps/accounts/{id}/config", byMethod{"GET": tok(onID(a, http.StatusOK, a.registry.Config))})
	mux.Handle("/api/apps/oauth/start", byMethod{"POST": tok(a.oauthStart)})
	mux.Handle("/api/apps/oauth/callback", byMethod{"GET": http.HandlerFunc(a.oauthCallback)})
	mux.Handle("/api/apps/syncs", byMethod{"GET": tok(onApp(a, a.syncs.Syncs)), "POST": tok(onBody(a, http.StatusCreated, a.syncs.CreateSync))})
	mux.Handle("/api/apps/syncs/{id}", byMethod{"GET": tok(onID(a, http.StatusOK, a.syncs.Sync)), "PATCH": tok(onIDBody(a, http.StatusOK, a.syncs.UpdateSync)), "DELETE": tok(onDelete(a, a.syncs.DeleteSync))})
	mux.Handle("/api/apps/syncs/{id}/run", byMethod{"POST": tok(a.runSync)})
	mux.Handle("/api/apps/syncs/{id}/cancel", byMethod{"POST": tok(onID(a, http.StatusAccepted, a.syncs.CancelSync))})
	mux.Handle("/api/apps/syncs/{id}/runs", byMethod{"GET": tok(a.listRuns)})
	mux.Handle("/api/apps/runs/{id}", byMethod{"GET": tok(onID(a, http.StatusOK, a.syncs.Run))})
	mux.Handle("/api/apps/actions", byMethod{"GET": tok(a.listActionRuns), "POST": tok(a.runAction)})
	mux.Handle("/api/apps/events/{sync}", byMethod{"POST": http.HandlerFunc(a.event)})
}

// byMethod routes by method; others get 405 {message} with Allow (HEAD is
// not GET here).
type byMethod map[string]http.Handler

func (m byMethod) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if next, ok := m[r.Method]; ok {
		next.ServeHTTP(w, r)
		return
	}
	methods(nil, slices.Sorted(maps.Keys(m))...).ServeHTTP(w, r)
}

// appsAPI serves /api/apps over the parts of the apps service, each route
// on the part whose job it is.
type appsAPI struct {
	h        *Host
	svc      *apps.Service // removing an app (its syncs, then itself); the host's address
	registry *apps.Registry
	syncs    *apps.SyncService
	hooks    *apps.Webhooks
	oauth    *apps.OAuthSetup
	actions  *apps.Actions
}

// fail answers an error of the service with the status and message of
// apps.HTTPStatus (the console's too); an internal error is logged and
// answered 500 "internal error".
func (a *appsAPI) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, msg := apps.HTTPStatus(r.Context(), err)
	if status == http.StatusInternalServerError {
		a.h.internalError(w, r, err)
		return
	}
	httpjson.Message(w, status, msg)
}

// reply answers v with status, or err when it is not nil (see fail).
func (a *appsAPI) reply(w http.ResponseWriter, r *http.Request, status int, v any, err error) {
	if err != nil {
		a.fail(w, r, err)
		return
	}
	httpjson.Write(w, status, v)
}

// onID answers with status what call gives for the request's {id} (see
// reply).
func onID[T any](a *appsAPI, status int, call func(context.Context, string) (T, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := call(r.Context(), r.PathValue("id"))
		a.reply(w, r, status, v, err)
	}
}

// onBody answers with status what call gives for the request's JSON body
// (see readAppsJSON and reply).
func onBody[B, T any](a *appsAPI, status int, call func(context.Context, B) (T, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body B
		if !readAppsJSON(w, r, &body) {
			return
		}
		v, err := call(r.Context(), body)
		a.reply(w, r, status, v, err)
	}
}

// onIDBody answers with status what call gives for the request's {id} and
// JSON body (see readAppsJSON and reply).
func onIDBody[B, T any](a *appsAPI, status int, call func(context.Context, string, B) (T, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var body B
		if !readAppsJSON(w, r, &body) {
			return
		}
		v, err := call(r.Context(), r.PathValue("id"), body)
		a.reply(w, r, status, v, err)
	}
}

// onApp answers what call lists for the request's ?app= (empty: all).
func onApp[T any](a *appsAPI, call func(context.Context, string) (T, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		list, err := call(r.Context(), r.URL.Query().Get("app"))
		a.reply(w, r, http.StatusOK, list, err)
	}
}

// onDelete removes what the request's {id} names with call and answers
// {deleted: true, warnings} (what could not be cleaned up, say a webhook
// the app did not delete).
func onDelete(a *appsAPI, call func(context.Context, string) ([]string, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		warns, err := call(r.Context(), r.PathValue("id"))
		a.reply(w, r, http.StatusOK, map[string]any{"deleted": true, "warnings": nonNil(warns)}, err)
	}
}

// runSync runs a sync now, in full when the body (optional) says
// {"full": true}.
func (a *appsAPI) runSync(w http.ResponseWriter, r *http.Request) {
	var body apps.RunSpec
	if !readJSON(w, r, &body, maxAppsBody, true) {
		return
	}
	run, err := a.syncs.RunWith(r.Context(), r.PathValue("id"), body)
	a.reply(w, r, http.StatusAccepted, run, err)
}

func (a *appsAPI) listApps(w http.ResponseWriter, r *http.Request) {
	list, err := a.registry.Apps(r.Context())
	a.reply(w, r, http.StatusOK, list, err)
}

type accountBody struct {
	App    string         `json:"app"`
	Auth   string         `json:"auth"`
	Fields map[string]any `json:"fields"`
}

func (a *appsAPI) createAccount(w http.ResponseWriter, r *http.Request) {
	var body accountBody
	if !readAppsJSON(w, r, &body) {
		return
	}
	acc, err := a.registry.CreateAccount(r.Context(), body.App, body.Auth, body.Fields)
	a.reply(w, r, http.StatusCreated, acc, err)
}

func (a *appsAPI) updateAccount(w http.ResponseWriter, r *http.Request) {
	var body accountBody
	if !readAppsJSON(w, r, &body) {
		return
	}
	acc, err := a.registry.UpdateAccount(r.Context(), r.PathValue("id"), body.Fields)
	a.reply(w, r, http.StatusOK, acc, err)
}

func (a *appsAPI) deleteAccount(w http.ResponseWriter, r *http.Request) {
	if err := a.registry.DeleteAccount(r.Context(), r.PathValue("id")); err != nil {
		a.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (a *appsAPI) oauthStart(w http.ResponseWriter, r *http.Request) {
	var body struct {
		App     string `json:"app"`
		Auth    string `json:"auth"`
		Account string `json:"account"`
	}
	if !readAppsJSON(w, r, &body) {
		return
	}
	out, err := a.oauth.StartOAuth(r.Context(), body.App, body.Auth, body.Account, a.svc.BaseURLFor(r))
	a.reply(w, r, http.StatusOK, out, err)
}

// oauthCallback is the page the provider sends the user back to.
func (a *appsAPI) oauthCallback(w http.ResponseWriter, r *http.Request) {
	acc, err := a.oauth.FinishOAuth(r.Context(), r.URL.Query())
	status, title, text := http.StatusOK, "Account connected", ""
	switch {
	case err == nil:
		text = fmt.Sprintf("The account %q is connected (account id %s). You can close this window.", acc.Name, acc.ID)
	case errors.Is(err, apps.ErrInvalid) || errors.Is(err, apps.ErrNotFound):
		status, title, text = http.StatusBadRequest, "The account was not connected", err.Error()
	default:
		a.h.logError(r, err)
		status, title, text = http.StatusInternalServerError, "The account was not connected", "internal error"
	}
	htmlpage.Set(w, htmlpage.HTML, callbackPolicy)
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><html><head><meta charset=\"utf-8\"><title>%s</title></head><body><h1>%s</h1><p>%s</p></body></html>\n",
		html.EscapeString(title), html.EscapeString(title), html.EscapeString(text))
}

// callbackPolicy is the OAuth callback page's headers: a static page that
// loads nothing.
var callbackPolicy = htmlpage.Policy{CSP: []string{"default-src 'none'"}, Cache: "no-store", Referrer: "no-referrer"}

// queryLimit reads ?limit=N (1 to 1000; 0 when absent); it answers a bad
// one itself and reports whether to go on.
func queryLimit(w http.ResponseWriter, r *http.Request) (int, bool) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return 0, true
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1000 {
		httpjson.Message(w, http.StatusBadRequest, "limit: want a number from 1 to 1000")
		return 0, false
	}
	return n, true
}

func (a *appsAPI) listRuns(w http.ResponseWriter, r *http.Request) {
	limit, ok := queryLimit(w, r)
	if !ok {
		return
	}
	if _, err := a.syncs.Sync(r.Context(), r.PathValue("id")); err != nil {
		a.fail(w, r, err)
		return
	}
	list, err := a.syncs.Runs(r.Context(), r.PathValue("id"), limit)
	a.reply(w, r, http.StatusOK, list, err)
}

func (a *appsAPI) runAction(w http.ResponseWriter, r *http.Request) {
	var body apps.ActionRequest
	if !readAppsJSON(w, r, &body) {
		return
	}
	if u, ok := userFrom(r.Context()); ok {
		body.By = u.Email
		if body.By == "" {
			body.By = u.ID
		}
	}
	res, err := a.actions.RunAction(r.Context(), body)
	a.reply(w, r, http.StatusOK, res, err)
}

func (a *appsAPI) listActionRuns(w http.ResponseWriter, r *http.Request) {
	limit, ok := queryLimit(w, r)
	if !ok {
		return
	}
	app := r.URL.Query().Get("app")
	if app == "" {
		httpjson.Message(w, http.StatusBadRequest, "app: the app's id is required (?app=ID)")
		return
	}
	list, err := a.actions.ActionRuns(r.Context(), app, limit)
	a.reply(w, r, http.StatusOK, list, err)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
