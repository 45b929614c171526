package console

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/syncer"
)

// serviceMessage words an error of the apps service for a page, with the
// status of apps.HTTPStatus (the API's too), and tells whether it is the
// user's (or the app's) rather than an internal one.
func serviceMessage(ctx context.Context, err error) (string, int, bool) {
	status, msg := apps.HTTPStatus(ctx, err)
	if status == http.StatusInternalServerError {
		return "", 0, false
	}
	if r, size := utf8.DecodeRuneInString(msg); r != utf8.RuneError {
		msg = string(unicode.ToUpper(r)) + msg[size:]
	}
	return msg, status, true
}

// fail shows a service error on the error page (internal ones logged).
func (c *Console) fail(w http.ResponseWriter, r *http.Request, err error) {
	c.failWith(w, r, err, func(status int, msg string) {
		c.render(w, r, status, "error", &page{Title: "Not done", Error: msg})
	})
}

// failWith shows a service error with show (the page or form the request
// came from, with the message and its status); an internal error is
// logged and gets the internal error page instead.
func (c *Console) failWith(w http.ResponseWriter, r *http.Request, err error, show func(status int, msg string)) {
	msg, status, ok := serviceMessage(r.Context(), err)
	if !ok {
		c.internal(w, r, err)
		return
	}
	show(status, msg)
}

// svc returns the apps service or answers that there is none.
func (c *Console) svc(w http.ResponseWriter, r *http.Request) *apps.Service {
	if c.cfg.Apps == nil {
		c.render(w, r, http.StatusNotFound, "error", &page{Title: "No apps service", Error: "This host runs without the apps service."})
	}
	return c.cfg.Apps
}

// pathCall returns the apps service and what call (a method of it, such as
// on(syncs, (*apps.SyncService).Run)) gives for the request's {id}; ok is false when the
// page answering that there is no service, or call's error, was written.
func pathCall[T any](c *Console, w http.ResponseWriter, r *http.Request, call func(*apps.Service, context.Context, string) (T, error)) (svc *apps.Service, v T, ok bool) {
	if svc = c.svc(w, r); svc == nil {
		return nil, v, false
	}
	v, err := call(svc, r.Context(), r.PathValue("id"))
	if err != nil {
		c.fail(w, r, err)
		return nil, v, false
	}
	return svc, v, true
}

// on makes a call for pathCall of a method of one part of the service
// (registry or syncs).
func on[P, T any](part func(*apps.Service) P, method func(P, context.Context, string) (T, error)) func(*apps.Service, context.Context, string) (T, error) {
	return func(s *apps.Service, ctx context.Context, id string) (T, error) { return method(part(s), ctx, id) }
}

// registry and syncs pick a part of the apps service (for on).
func registry(s *apps.Service) *apps.Registry { return s.Registry }
func syncs(s *apps.Service) *apps.SyncService { return s.SyncService }

// pathApp returns the apps service and the app the request's {id} names;
// ok is false when the page answering that neither exists was written.
func (c *Console) pathApp(w http.ResponseWriter, r *http.Request) (svc *apps.Service, a *apps.App, ok bool) {
	return pathCall(c, w, r, on(registry, (*apps.Registry).App))
}

// syncApp returns the sync id names and its app; ok is false when the
// page answering that either does not exist was written.
func (c *Console) syncApp(w http.ResponseWriter, r *http.Request, svc *apps.Service, id string) (sy *apps.Sync, a *apps.App, ok bool) {
	sy, err := svc.SyncService.Sync(r.Context(), id)
	if err != nil {
		c.fail(w, r, err)
		return nil, nil, false
	}
	if a, err = svc.Registry.App(r.Context(), sy.AppID); err != nil {
		c.fail(w, r, err)
		return nil, nil, false
	}
	return sy, a, true
}

type appsData struct {
	Apps []*apps.App
}

func (c *Console) appsPage(w http.ResponseWriter, r *http.Request) {
	c.appsList(w, r, http.StatusOK, &page{})
}

func (c *Console) appsList(w http.ResponseWriter, r *http.Request, status int, p *page) {
	svc := c.svc(w, r)
	if svc == nil {
		return
	}
	list, err := svc.Registry.Apps(r.Context())
	if err != nil {
		c.fail(w, r, err)
		return
	}
	p.Title, p.Nav, p.Data = "Apps", "apps", &appsData{Apps: list}
	c.render(w, r, status, "apps", p)
}

func (c *Console) registerApp(w http.ResponseWriter, r *http.Request) {
	svc := c.svc(w, r)
	if svc == nil {
		return
	}
	raw := strings.TrimSpace(r.PostForm.Get("url"))
	if _, err := apps.NormalizeURL(raw); raw == "" || err != nil {
		c.appsList(w, r, http.StatusBadRequest, &page{FieldErrors: map[string]string{"url": "Enter the app's address: http:// or https:// with a host, no query."}, Form: r.PostForm})
		return
	}
	a, err := svc.Registry.RegisterApp(r.Context(), raw)
	if err != nil {
		c.failWith(w, r, err, func(status int, msg string) {
			c.appsList(w, r, status, &page{FieldErrors: map[string]string{"url": msg}, Form: r.PostForm})
		})
		return
	}
	redirect(w, r, "/apps/"+a.ID)
}

// appData is the app page's content.
type appData struct {
	App        *apps.App
	Checks     []conformance.Result
	Accounts   []*apps.Account
	Syncs      []*apps.Sync
	Descriptor string
}

func (c *Console) appPage(w http.ResponseWriter, r *http.Request) {
	c.showApp(w, r, http.StatusOK, &page{})
}

func (c *Console) showApp(w http.ResponseWriter, r *http.Request, status int, p *page) {
	svc, a, ok := c.pathApp(w, r)
	if !ok {
		return
	}
	accs, err := svc.Registry.Accounts(r.Context(), a.ID)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	syncs, err := svc.SyncService.Syncs(r.Context(), a.ID)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	pretty, _ := json.MarshalIndent(a.Descriptor, "", "  ")
	d := &appData{App: a, Accounts: accs, Syncs: syncs, Descriptor: string(pretty), Checks: descriptorChecks(r.Context(), a.Descriptor)}
	p.Title, p.Nav, p.Data = a.Name, "apps", d
	c.render(w, r, status, "app", p)
}

// descriptorChecks runs the conformance suite's descriptor rules on the
// stored descriptor (served in process, so the app is not called again) and
// returns the failed and warned ones.
func descriptorChecks(ctx context.Context, d *protocol.Descriptor) []conformance.Result {
	body, err := json.Marshal(d)
	if err != nil {
		return nil
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodGet && r.URL.Path == "/" {
			_, _ = w.Write(body)
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"message":"not served by the console's descriptor check"}`))
	})
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	rep, err := conformance.Run(ctx, conformance.Config{Handler: h, Timeout: 5 * time.Second, TotalTimeout: 10 * time.Second, MaxTypes: 1})
	if err != nil {
		return nil
	}
	var out []conformance.Result
	for _, res := range rep.Results {
		if strings.HasPrefix(res.ID, "descriptor.") && (res.Status == conformance.Failed || res.Status == conformance.Warned) {
			out = append(out, res)
		}
	}
	return out
}

func (c *Console) refreshApp(w http.ResponseWriter, r *http.Request) {
	svc, a, ok := c.pathApp(w, r)
	if !ok {
		return
	}
	if _, err := svc.Registry.RegisterApp(r.Context(), a.URL); err != nil {
		c.failWith(w, r, err, func(status int, msg string) {
			c.showApp(w, r, status, &page{Error: "The descriptor was not read again: " + msg})
		})
		return
	}
	c.showApp(w, r, http.StatusOK, &page{Notice: "The descriptor was read again."})
}

func (c *Console) deleteApp(w http.ResponseWriter, r *http.Request) {
	_, warns, ok := pathCall(c, w, r, (*apps.Service).DeleteApp)
	if !ok {
		return
	}
	c.appsList(w, r, http.StatusOK, &page{Notice: removedNotice("app", warns)})
}

// removedNotice says that the app or sync was removed, its data kept, and
// what went wrong on the way (the service's warnings).
func removedNotice(what string, warns []string) string {
	notice := "The " + what + " was removed (its data stays in the store)."
	if len(warns) > 0 {
		notice += " " + strings.Join(warns, "; ")
	}
	return notice
}

// ---- accounts

type accountFormData struct {
	App  *apps.App
	Auth *protocol.Authentication
	// Auths are the app's authentications (to pick another).
	Auths []protocol.Authentication
	// OAuth is true for an OAuth authentication: a connect button.
	OAuth bool
}

func isOAuth(au *protocol.Authentication) bool {
	if au.ID == protocol.AuthOAuth1 || au.ID == protocol.AuthOAuth2 {
		return true
	}
	for _, f := range au.Fields {
		if f.Type == "oauth" {
			return true
		}
	}
	return false
}

func findAuth(d *protocol.Descriptor, id string) *protocol.Authentication {
	for i := range d.Authentication {
		if d.Authentication[i].ID == id || (id == "" && i == 0) {
			return &d.Authentication[i]
		}
	}
	return nil
}

func (c *Console) accountForm(w http.ResponseWriter, r *http.Request) {
	c.showAccountForm(w, r, http.StatusOK, &page{}, r.URL.Query().Get("auth"))
}

func (c *Console) showAccountForm(w http.ResponseWriter, r *http.Request, status int, p *page, authID string) {
	_, a, ok := c.pathApp(w, r)
	if !ok {
		return
	}
	au := findAuth(a.Descriptor, authID)
	if au == nil {
		c.render(w, r, http.StatusNotFound, "error", &page{Title: "No such authentication", Error: fmt.Sprintf("The app has no authentication %q.", authID)})
		return
	}
	p.Title, p.Nav, p.Data = "Connect an account to "+a.Name, "apps", &accountFormData{App: a, Auth: au, Auths: a.Descriptor.Authentication, OAuth: isOAuth(au)}
	c.render(w, r, status, "account", p)
}

// accountFields reads the form's values of an authentication's fields,
// typed as the app declared them; fe gets a message per refused field.
func accountFields(au *protocol.Authentication, form map[string][]string, fe map[string]string) map[string]string {
	given := map[string]string{}
	for _, f := range au.Fields {
		if f.Type == "link" || f.Type == "oauth" {
			continue
		}
		var v string
		if vs := form["f."+f.ID]; len(vs) > 0 {
			v = vs[0]
		}
		if f.Type == "bool" {
			if v == "" {
				v = "false"
			} else {
				v = "true"
			}
		}
		if strings.TrimSpace(v) == "" {
			if !f.Optional {
				fe["f."+f.ID] = "Required."
			}
			continue
		}
		if f.Type == "number" {
			var n json.Number
			if err := json.Unmarshal([]byte(strings.TrimSpace(v)), &n); err != nil {
				fe["f."+f.ID] = "Enter a number."
				continue
			}
		}
		given[f.ID] = v
	}
	return given
}

func (c *Console) createAccount(w http.ResponseWriter, r *http.Request) {
	svc, a, ok := c.pathApp(w, r)
	if !ok {
		return
	}
	authID := r.PostForm.Get("auth")
	au := findAuth(a.Descriptor, authID)
	if au == nil {
		c.render(w, r, http.StatusBadRequest, "error", &page{Title: "No such authentication", Error: fmt.Sprintf("The app has no authentication %q.", authID)})
		return
	}
	fe := map[string]string{}
	given := accountFields(au, r.PostForm, fe)
	// Values sent back to the form: never a password.
	back := map[string][]string{}
	for _, f := range au.Fields {
		if f.Type != "password" {
			back["f."+f.ID] = r.PostForm["f."+f.ID]
		}
	}
	if len(fe) > 0 {
		c.showAccountForm(w, r, http.StatusBadRequest, &page{FieldErrors: fe, Form: back}, au.ID)
		return
	}
	fields, err := apps.TypedFields(a.Descriptor, au.ID, given)
	if err == nil {
		_, err = svc.Registry.CreateAccount(r.Context(), a.ID, au.ID, fields)
	}
	if err != nil {
		c.failWith(w, r, err, func(status int, msg string) {
			c.showAccountForm(w, r, status, &page{Error: "The account was not saved: " + msg, Form: back}, au.ID)
		})
		return
	}
	c.showApp(w, r, http.StatusOK, &page{Notice: "The account was validated by the app and saved."})
}

func (c *Console) startOAuth(w http.ResponseWriter, r *http.Request) {
	svc := c.svc(w, r)
	if svc == nil {
		return
	}
	out, err := svc.OAuthSetup.StartOAuth(r.Context(), r.PathValue("id"), r.PostForm.Get("auth"), "", svc.BaseURLFor(r))
	if err != nil {
		c.failWith(w, r, err, func(status int, msg string) {
			c.showAccountForm(w, r, status, &page{Error: "The OAuth flow did not start: " + msg}, r.PostForm.Get("auth"))
		})
		return
	}
	redirect(w, r, out.RedirectURI)
}

func (c *Console) deleteAccount(w http.ResponseWriter, r *http.Request) {
	svc, acc, ok := pathCall(c, w, r, on(registry, (*apps.Registry).Account))
	if !ok {
		return
	}
	if err := svc.Registry.DeleteAccount(r.Context(), acc.ID); err != nil {
		c.fail(w, r, err)
		return
	}
	redirect(w, r, "/apps/"+acc.AppID)
}

// ---- syncs

type syncFormData struct {
	App       *apps.App
	Account   *apps.Account
	Config    *protocol.ConfigResponse
	Datalists map[string]*datalistView
}

func (c *Console) syncForm(w http.ResponseWriter, r *http.Request) {
	c.showSyncForm(w, r, http.StatusOK, &page{}, r.URL.Query().Get("account"))
}

func (c *Console) showSyncForm(w http.ResponseWriter, r *http.Request, status int, p *page, accountID string) {
	svc, a, ok := c.pathApp(w, r)
	if !ok {
		return
	}
	acc, err := svc.Registry.Account(r.Context(), accountID)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	if acc.AppID != a.ID {
		c.render(w, r, http.StatusBadRequest, "error", &page{Title: "Wrong account", Error: "The account belongs to another app."})
		return
	}
	cfg, err := svc.Registry.Config(r.Context(), acc.ID)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	if p.Form == nil {
		p.Form = map[string][]string{}
		for _, t := range cfg.Types {
			if t.Default {
				p.Form["types"] = append(p.Form["types"], t.ID)
			}
		}
	}
	d := &syncFormData{App: a, Account: acc, Config: cfg, Datalists: c.datalists(r, acc.ID, cfg, p.Form["types"], p.Form)}
	p.Title, p.Nav, p.Data = "Set up a sync of "+a.Name, "apps", d
	c.render(w, r, status, "syncform", p)
}

// syncFilter reads the filter inputs ("filter.ID") of the form; values are
// checked by type (the date grammar with package daterange).
func syncFilter(cfg *protocol.ConfigResponse, form map[string][]string, fe map[string]string) map[string][]string {
	out := map[string][]string{}
	for _, f := range cfg.Filters {
		var vals []string
		for _, v := range form["filter."+f.ID] {
			if v = strings.TrimSpace(v); v != "" {
				vals = append(vals, v)
			}
		}
		if f.Type == "bool" {
			if len(vals) == 0 {
				vals = []string{"false"}
			} else {
				vals = []string{"true"}
			}
		}
		if len(vals) == 0 {
			if !f.Optional && f.Type != "link" && f.Type != "oauth" {
				fe["filter."+f.ID] = "Required."
			}
			continue
		}
		if msg := filterProblem(f.Type, vals[len(vals)-1]); msg != "" {
			fe["filter."+f.ID] = msg
			continue
		}
		out[f.ID] = vals
	}
	return out
}

// everyProblem says what is wrong with a sync's schedule as typed in the
// form ("" when it is fine: a duration, or empty for runs on demand).
func everyProblem(every string) string {
	if every == "" {
		return ""
	}
	if _, err := apps.ParseEvery(every); err != nil {
		return "Enter a duration such as 15m or 1h, or leave it empty for runs on demand: " + err.Error()
	}
	return ""
}

func (c *Console) createSync(w http.ResponseWriter, r *http.Request) {
	svc, a, ok := c.pathApp(w, r)
	if !ok {
		return
	}
	accountID := r.PostForm.Get("account")
	acc, err := svc.Registry.Account(r.Context(), accountID)
	if err != nil || acc.AppID != a.ID {
		c.render(w, r, http.StatusBadRequest, "error", &page{Title: "No such account", Error: "Pick an account of this app."})
		return
	}
	cfg, err := svc.Registry.Config(r.Context(), acc.ID)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	fe := map[string]string{}
	known := map[string]bool{}
	for _, t := range cfg.Types {
		known[t.ID] = true
	}
	types := r.PostForm["types"]
	for _, t := range types {
		if !known[t] {
			fe["types"] = fmt.Sprintf("The app has no type %q.", t)
		}
	}
	if len(types) == 0 {
		fe["types"] = "Pick at least one type."
	}
	filter := syncFilter(cfg, r.PostForm, fe)
	every := strings.TrimSpace(r.PostForm.Get("every"))
	if msg := everyProblem(every); msg != "" {
		fe["every"] = msg
	}
	if len(fe) > 0 {
		c.showSyncForm(w, r, http.StatusBadRequest, &page{FieldErrors: fe, Form: r.PostForm}, acc.ID)
		return
	}
	sy, err := svc.SyncService.CreateSync(r.Context(), apps.SyncSpec{App: a.ID, Account: acc.ID, Types: types, Filter: filter, Every: &every})
	if err != nil {
		c.failWith(w, r, err, func(status int, msg string) {
			c.showSyncForm(w, r, status, &page{Error: "The sync was not set up: " + msg, Form: r.PostForm}, acc.ID)
		})
		return
	}
	redirect(w, r, "/syncs/"+sy.ID)
}

type syncData struct {
	App  *apps.App
	Sync *apps.Sync
	Runs []*apps.Run
	// Live is true while a run is due, queued or running: the fragment
	// polls.
	Live bool
	// Due is true when a run is due or in progress.
	Due bool
	// Filters are the sync's filter values, sorted by id.
	Filters []filterValue
	// Progress is the engine's progress per type of the runs in progress
	// (in this host process), by run id.
	Progress map[string][]syncer.Event
}

type filterValue struct {
	ID     string
	Values string
}

func (c *Console) loadSync(w http.ResponseWriter, r *http.Request) *syncData {
	svc := c.svc(w, r)
	if svc == nil {
		return nil
	}
	sy, a, ok := c.syncApp(w, r, svc, r.PathValue("id"))
	if !ok {
		return nil
	}
	runs, err := svc.SyncService.Runs(r.Context(), sy.ID, 20)
	if err != nil {
		c.fail(w, r, err)
		return nil
	}
	d := &syncData{App: a, Sync: sy, Runs: runs, Progress: map[string][]syncer.Event{}}
	// Due (a new sync's first run, say) but not started yet: the page
	// polls until the scheduler starts it.
	d.Due = sy.RunID != "" || (sy.NextAt != nil && !sy.NextAt.After(time.Now()))
	d.Live = d.Due
	for _, run := range runs {
		if run.Status == apps.StatusQueued || run.Status == apps.StatusRunning {
			d.Live = true
			if p := svc.Progress(run.ID); p != nil {
				d.Progress[run.ID] = p
			}
		}
	}
	for k, v := range sy.Filter {
		d.Filters = append(d.Filters, filterValue{ID: k, Values: strings.Join(v, ", ")})
	}
	sort.Slice(d.Filters, func(i, j int) bool { return d.Filters[i].ID < d.Filters[j].ID })
	return d
}

func (c *Console) syncPage(w http.ResponseWriter, r *http.Request) {
	c.showSync(w, r, http.StatusOK, &page{})
}

func (c *Console) showSync(w http.ResponseWriter, r *http.Request, status int, p *page) {
	d := c.loadSync(w, r)
	if d == nil {
		return
	}
	p.Title, p.Nav, p.Data = "Sync of "+d.App.Name, "apps", d
	c.render(w, r, status, "sync", p)
}

// setSchedule changes a sync's schedule ("" for runs on demand only).
func (c *Console) setSchedule(w http.ResponseWriter, r *http.Request) {
	svc := c.svc(w, r)
	if svc == nil {
		return
	}
	every := strings.TrimSpace(r.PostForm.Get("every"))
	if msg := everyProblem(every); msg != "" {
		c.showSync(w, r, http.StatusBadRequest, &page{Form: r.PostForm, FieldErrors: map[string]string{"every": msg}})
		return
	}
	if _, err := svc.SyncService.UpdateSync(r.Context(), r.PathValue("id"), apps.SyncSpec{Every: &every}); err != nil {
		c.failWith(w, r, err, func(status int, msg string) {
			c.showSync(w, r, status, &page{Form: r.PostForm, FieldErrors: map[string]string{"every": msg}})
		})
		return
	}
	redirect(w, r, "/syncs/"+r.PathValue("id"))
}

// runsFragment is the runs table alone, polled while a run is in progress.
func (c *Console) runsFragment(w http.ResponseWriter, r *http.Request) {
	d := c.loadSync(w, r)
	if d == nil {
		return
	}
	c.render(w, r, http.StatusOK, "runs_fragment", &page{Data: d})
}

// runNow runs a sync now: in full (a refresh) when the form says full=1
// (the "Full sync" button).
func (c *Console) runNow(w http.ResponseWriter, r *http.Request) {
	full := r.PostFormValue("full") == "1"
	run := func(svc *apps.Service, ctx context.Context, id string) (*apps.Run, error) {
		return svc.SyncService.RunWith(ctx, id, apps.RunSpec{Full: full})
	}
	if _, _, ok := pathCall(c, w, r, run); !ok {
		return
	}
	redirect(w, r, "/syncs/"+r.PathValue("id"))
}

func (c *Console) deleteSync(w http.ResponseWriter, r *http.Request) {
	svc, sy, ok := pathCall(c, w, r, on(syncs, (*apps.SyncService).Sync))
	if !ok {
		return
	}
	warns, err := svc.SyncService.DeleteSync(r.Context(), sy.ID)
	if err != nil {
		c.fail(w, r, err)
		return
	}
	r.SetPathValue("id", sy.AppID)
	c.showApp(w, r, http.StatusOK, &page{Notice: removedNotice("sync", warns)})
}
