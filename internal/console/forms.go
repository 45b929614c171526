package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/apps"
)

// The console's POST forms, each read by one function into a struct that
// its handler uses. The function checks every input and reports all the
// problems at once as formErrors (by input name), which the handler shows
// beside the inputs of the form it sends back. By then the body was read
// by readForm (same origin, at most MaxForm bytes) and the CSRF token
// checked (by user, or by login for the sign-in form).

// formErrors are a form's problems by the name of the input.
type formErrors map[string]string

// Error lists the problems, by input name.
func (fe formErrors) Error() string {
	names := make([]string, 0, len(fe))
	for n := range fe {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		parts = append(parts, n+": "+fe[n])
	}
	return "console: form: " + strings.Join(parts, "; ")
}

// err is fe as an error: nil when there is no problem.
func (fe formErrors) err() error {
	if len(fe) == 0 {
		return nil
	}
	return fe
}

// formProblems returns the formErrors of a parse function's error.
func formProblems(err error) (formErrors, bool) {
	fe, ok := err.(formErrors)
	return fe, ok
}

// loginForm is the sign-in form.
type loginForm struct {
	Email, Password string
	// Next is where to go once signed in (a path of this host).
	Next string
}

func parseLoginForm(form url.Values) (loginForm, error) {
	f := loginForm{Email: strings.TrimSpace(form.Get("email")), Password: form.Get("password"), Next: safeNext(form.Get("next"))}
	fe := formErrors{}
	if f.Email == "" || !strings.Contains(f.Email, "@") {
		fe["email"] = "Enter the e-mail address of a user of this host."
	}
	if f.Password == "" {
		fe["password"] = "Enter the password."
	}
	return f, fe.err()
}

// tokenForm creates an API token; its name is checked by the auth service
// (the API's rules too).
type tokenForm struct {
	Name string
}

func parseTokenForm(form url.Values) tokenForm {
	return tokenForm{Name: strings.TrimSpace(form.Get("name"))}
}

// appForm registers an app.
type appForm struct {
	URL string
	// Adopt takes over the app's space when it holds data no sync owns
	// (apps.RegisterSpec.Adopt).
	Adopt bool
}

func parseAppForm(form url.Values) (appForm, error) {
	f := appForm{URL: strings.TrimSpace(form.Get("url")), Adopt: form.Get("adopt") != ""}
	if _, err := apps.NormalizeURL(f.URL); f.URL == "" || err != nil {
		return f, formErrors{"url": "Enter the app's address: http:// or https:// with a host, no query."}
	}
	return f, nil
}

// accountForm connects an account with one of the app's authentications.
type accountForm struct {
	Auth *protocol.Authentication
	// Fields are the values given, by field id, typed as the account is
	// saved (apps.TypedFields: a number a float64, a bool a bool).
	Fields map[string]any
	// Back are the values to send back to the form: never a password.
	Back url.Values
}

// parseAccountForm reads the account form of an app with descriptor d; an
// authentication the app does not have is refused (400) before its fields.
// Each value is typed here, as it is saved, so that a value the save
// would refuse is a problem of its input.
func parseAccountForm(form url.Values, d *protocol.Descriptor) (accountForm, error) {
	id := form.Get("auth")
	au := findAuth(d, id)
	if au == nil {
		return accountForm{}, noAuth(http.StatusBadRequest, id)
	}
	f := accountForm{Auth: au, Fields: map[string]any{}, Back: url.Values{}}
	fe := formErrors{}
	for _, fd := range au.Fields {
		name := "f." + fd.ID
		if fd.Type != "password" {
			f.Back[name] = form[name]
		}
		if v, ok := accountValue(fd, form.Get(name), fe); ok {
			f.Fields[fd.ID] = v
		}
	}
	return f, fe.err()
}

// accountValue is the value of an account field as the form gives it,
// typed as the account is saved (as apps.TypedFields types it): a number a
// float64, a yes/no a bool, else the text; false for none, fe getting its
// problem.
func accountValue(fd protocol.Field, v string, fe formErrors) (any, bool) {
	name := "f." + fd.ID
	switch fd.Type {
	case "link", "oauth":
		return nil, false
	case "bool":
		return v != "", true
	}
	if strings.TrimSpace(v) == "" {
		if !fd.Optional {
			fe[name] = "Required."
		}
		return nil, false
	}
	if fd.Type == "number" {
		// A JSON number in float64's range (not Inf or NaN, which
		// strconv.ParseFloat would read), without the spaces around it.
		var n float64
		if err := json.Unmarshal([]byte(strings.TrimSpace(v)), &n); err != nil {
			fe[name] = "Enter a number."
			return nil, false
		}
		return n, true
	}
	return v, true
}

// oauthForm starts an authentication's OAuth flow.
type oauthForm struct {
	Auth string
}

func parseOAuthForm(form url.Values) oauthForm {
	return oauthForm{Auth: form.Get("auth")}
}

// syncForm sets up a sync with an account (the form's "account", looked
// up before, gave cfg).
type syncForm struct {
	Types  []string
	Filter map[string][]string
	// Every is the schedule ("" for runs on demand).
	Every string
}

func parseSyncForm(form url.Values, cfg *protocol.ConfigResponse) (syncForm, error) {
	f := syncForm{Types: form["types"], Every: strings.TrimSpace(form.Get("every"))}
	fe := formErrors{}
	for _, t := range f.Types {
		if !slices.ContainsFunc(cfg.Types, func(td protocol.TypeDescriptor) bool { return td.ID == t }) {
			fe["types"] = fmt.Sprintf("The app has no type %q.", t)
		}
	}
	if len(f.Types) == 0 {
		fe["types"] = "Pick at least one type."
	}
	f.Filter = syncFilter(cfg, form, fe)
	if msg := everyProblem(f.Every); msg != "" {
		fe["every"] = msg
	}
	return f, fe.err()
}

// syncFilter reads the filter inputs ("filter.ID") of the form; values are
// checked by type by wireValue, which makes what the app receives of them
// (the date grammar with package daterange).
func syncFilter(cfg *protocol.ConfigResponse, form url.Values, fe formErrors) map[string][]string {
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
		if _, msg := wireValue(f.Type, vals); msg != "" {
			fe["filter."+f.ID] = msg
			continue
		}
		out[f.ID] = vals
	}
	return out
}

// scheduleForm changes a sync's schedule.
type scheduleForm struct {
	// Every is the schedule ("" for runs on demand).
	Every string
}

func parseScheduleForm(form url.Values) (scheduleForm, error) {
	f := scheduleForm{Every: strings.TrimSpace(form.Get("every"))}
	if msg := everyProblem(f.Every); msg != "" {
		return f, formErrors{"every": msg}
	}
	return f, nil
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

// runForm runs a sync now: in full (a refresh) with full=1 (the "Full
// sync" button).
type runForm struct {
	Full bool
}

func parseRunForm(form url.Values) runForm {
	return runForm{Full: form.Get("full") == "1"}
}

// actionForm runs an action of the app with one of its accounts.
type actionForm struct {
	Account string
	// Args are the arguments given, by id.
	Args map[string]any
	// Entity is the entity of the arguments' text templates, if any.
	Entity *apps.EntityRef
}

// parseActionForm reads the form of the action of d (its accounts and the
// store's databases as d lists them).
func parseActionForm(form url.Values, d *actionView) (actionForm, error) {
	f := actionForm{Account: form.Get("account"), Args: map[string]any{}}
	fe := formErrors{}
	if !slices.ContainsFunc(d.Accounts, func(acc *apps.Account) bool { return acc.ID == f.Account }) {
		fe["account"] = "Pick an account of this app (connect one on the app's page first)."
	}
	for _, arg := range d.Action.Args {
		if v := form.Get("arg." + arg.ID); v != "" {
			f.Args[arg.ID] = v
		}
	}
	et, eid := strings.TrimSpace(form.Get("entity_type")), strings.TrimSpace(form.Get("entity_id"))
	switch {
	case et != "" && !slices.Contains(d.Types, et):
		fe["entity_type"] = fmt.Sprintf("The store has no database %q.", et)
	case et != "" && eid != "":
		f.Entity = &apps.EntityRef{Type: et, ID: eid}
	case et != "":
		fe["entity_id"] = "Give the entity's id too, or neither."
	case eid != "":
		fe["entity_type"] = "Give the entity's type too, or neither."
	}
	return f, fe.err()
}
