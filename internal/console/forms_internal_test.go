package console

import (
	"math"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/apps"
)

// formConfig is an app's config for the sync form's tests: two types and
// one filter of each kind the form checks.
var formConfig = &protocol.ConfigResponse{
	Types: []protocol.TypeDescriptor{{ID: "task"}, {ID: "user"}},
	Filters: []protocol.Filter{
		{ID: "n", Type: "number"}, {ID: "due", Type: "date", Optional: true}, {ID: "on", Type: "bool"},
		{ID: "tags", Type: "multidropdown", Optional: true},
	},
}

// wantProblems checks that a form's parse reported exactly the problems
// of the inputs named (none: no error).
func wantProblems(t *testing.T, err error, inputs []string) {
	t.Helper()
	fe, _ := formProblems(err)
	if (err == nil) != (inputs == nil) || len(fe) != len(inputs) {
		t.Fatalf("problems %v, want %v", err, inputs)
	}
	for _, p := range inputs {
		if fe[p] == "" {
			t.Errorf("%s not reported: %v", p, fe)
		}
	}
}

func TestParseSyncForm(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		// problems are the inputs refused (none: the form is read).
		problems []string
	}{
		{"good", "types=task&filter.n=3&filter.due=last+30+days&every=15m", nil},
		{"every problem at once", "types=nope&filter.n=x&filter.due=nonsense&every=often", []string{"types", "filter.n", "filter.due", "every"}},
		{"no type, no number", "", []string{"types", "filter.n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			form, _ := url.ParseQuery(tc.body)
			f, err := parseSyncForm(form, formConfig)
			wantProblems(t, err, tc.problems)
			if err == nil && (f.Every != "15m" || len(f.Types) != 1 || f.Filter["n"][0] != "3" || f.Filter["on"][0] != "false") {
				t.Errorf("read %+v", f)
			}
		})
	}
}

func TestParseActionForm(t *testing.T) {
	t.Parallel()
	d := &actionView{Action: &protocol.Action{Args: []protocol.ActionArg{{ID: "body"}}}, Accounts: []*apps.Account{{ID: "acc"}}, Types: []string{"s/task"}}
	for _, tc := range []struct {
		name, body string
		problems   []string
	}{
		{"good", "account=acc&arg.body=hi&entity_type=s/task&entity_id=1", nil},
		{"no entity", "account=acc", nil},
		{"every problem at once", "account=other&entity_type=s/nope", []string{"account", "entity_type"}},
		{"an id without a type", "account=acc&entity_id=1", []string{"entity_type"}},
		{"a type without an id", "account=acc&entity_type=s/task", []string{"entity_id"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			form, _ := url.ParseQuery(tc.body)
			f, err := parseActionForm(form, d)
			wantProblems(t, err, tc.problems)
			if tc.name == "good" && (f.Account != "acc" || f.Args["body"] != "hi" || f.Entity == nil || f.Entity.ID != "1") {
				t.Errorf("read %+v", f)
			}
		})
	}
}

func TestParseAccountForm(t *testing.T) {
	t.Parallel()
	d := &protocol.Descriptor{Authentication: []protocol.Authentication{{ID: "key", Fields: []protocol.Field{
		{ID: "user", Type: "text"}, {ID: "secret", Type: "password"}, {ID: "port", Type: "number", Optional: true}, {ID: "tls", Type: "bool"}}}}}
	form, _ := url.ParseQuery("auth=key&f.secret=pw&f.port=many")
	f, err := parseAccountForm(form, d)
	fe, ok := formProblems(err)
	if !ok || len(fe) != 2 || fe["f.user"] == "" || fe["f.port"] == "" {
		t.Fatalf("problems %v", err)
	}
	if _, sent := f.Back["f.secret"]; sent || f.Back.Get("f.port") != "many" {
		t.Errorf("values sent back %v: a password, or a value missing", f.Back)
	}
	form, _ = url.ParseQuery("auth=key&f.user=me&f.secret=pw")
	if f, err = parseAccountForm(form, d); err != nil || f.Fields["user"] != "me" || f.Fields["secret"] != "pw" || f.Fields["tls"] != false {
		t.Errorf("read %+v, %v", f, err)
	}
	if _, err := parseAccountForm(url.Values{"auth": {"other"}}, d); err == nil {
		t.Error("an authentication the app lacks is read")
	} else if _, ok := formProblems(err); ok {
		t.Errorf("an authentication the app lacks is a field's problem: %v", err)
	}
}

// An account's number is read as the account is saved (a float64), the
// spaces around it dropped; what the save would refuse is a problem of its
// input, never a failed save.
func TestParseAccountFormNumber(t *testing.T) {
	t.Parallel()
	d := &protocol.Descriptor{Authentication: []protocol.Authentication{{ID: "key", Fields: []protocol.Field{
		{ID: "port", Type: "number", Optional: true}, {ID: "tls", Type: "bool", Optional: true}}}}}
	for _, tc := range []struct {
		port string
		want any // nil: a problem of f.port
	}{
		{"3", 3.0},
		{" 3 ", 3.0},
		{"\t-0.5\n", -0.5},
		{"1e3", 1000.0},
		{"1e400", nil},
		{`"3"`, nil},
		{"inf", nil},
		{"NaN", nil},
		{"0x10", nil},
		{"1_000", nil},
		{"3 4", nil},
	} {
		f, err := parseAccountForm(url.Values{"auth": {"key"}, "f.port": {tc.port}, "f.tls": {"on"}}, d)
		if tc.want == nil {
			if fe, ok := formProblems(err); !ok || len(fe) != 1 || fe["f.port"] == "" {
				t.Errorf("%q: %+v, %v; want a problem of f.port", tc.port, f.Fields, err)
			}
			continue
		}
		if err != nil || f.Fields["port"] != tc.want || f.Fields["tls"] != true {
			t.Errorf("%q: %+v, %v; want port %v", tc.port, f.Fields, err, tc.want)
		}
	}
}

func TestParseSmallForms(t *testing.T) {
	t.Parallel()
	if _, err := parseLoginForm(url.Values{"email": {"nobody"}}); err == nil || !strings.Contains(err.Error(), "email") || !strings.Contains(err.Error(), "password") {
		t.Errorf("login: %v", err)
	}
	if f, err := parseLoginForm(url.Values{"email": {" a@b.c "}, "password": {"x"}, "next": {"//evil.example"}}); err != nil || f.Email != "a@b.c" || f.Next != "/" {
		t.Errorf("login: %+v %v", f, err)
	}
	if _, err := parseAppForm(url.Values{"url": {"ftp://x"}}); err == nil {
		t.Error("app: an ftp address is read")
	}
	if _, err := parseScheduleForm(url.Values{"every": {"often"}}); err == nil {
		t.Error("schedule: often is read")
	}
	if f, err := parseScheduleForm(url.Values{"every": {" "}}); err != nil || f.Every != "" {
		t.Errorf("schedule: on demand: %+v %v", f, err)
	}
	if !parseRunForm(url.Values{"full": {"1"}}).Full || parseRunForm(url.Values{"full": {"true"}}).Full {
		t.Error("run: full is not full=1 only")
	}
}

// FuzzParseForms reads any body with every form's parser: none panics,
// each problem names an input of its form, and what is read without
// problem holds only values the form accepts.
func FuzzParseForms(f *testing.F) {
	f.Add("types=task&filter.n=3&every=15m&account=acc&entity_type=s/task&entity_id=1&email=a@b&password=x")
	f.Add("types=x&types=task&filter.due=from+1+June+2025&filter.tags=a,b&auth=key&f.port=1e3&url=http://h")
	f.Add("every=-1h&filter.n=NaN&entity_id=%00&next=/\\evil")
	d := &actionView{Action: &protocol.Action{Args: []protocol.ActionArg{{ID: "body"}}}, Accounts: []*apps.Account{{ID: "acc"}}, Types: []string{"s/task"}}
	desc := &protocol.Descriptor{Authentication: []protocol.Authentication{{ID: "key", Fields: []protocol.Field{{ID: "port", Type: "number"}, {ID: "pw", Type: "password"}}}}}
	f.Fuzz(func(t *testing.T, body string) {
		form, err := url.ParseQuery(body)
		if err != nil {
			return
		}
		check := func(name string, err error, inputs ...string) {
			fe, ok := formProblems(err)
			if err != nil && !ok {
				return
			}
			for k := range fe {
				if !strings.HasPrefix(k, "filter.") && !strings.HasPrefix(k, "f.") && !slices.Contains(inputs, k) {
					t.Fatalf("%s: a problem of no input: %q", name, k)
				}
			}
		}
		sf, err := parseSyncForm(form, formConfig)
		check("sync", err, "types", "every")
		if err == nil {
			if len(sf.Types) == 0 || everyProblem(sf.Every) != "" {
				t.Fatalf("sync: read %+v", sf)
			}
		}
		af, err := parseActionForm(form, d)
		check("action", err, "account", "entity_type", "entity_id")
		if err == nil && (af.Account != "acc" || (af.Entity != nil && af.Entity.Type != "s/task")) {
			t.Fatalf("action: read %+v", af)
		}
		lf, err := parseLoginForm(form)
		check("login", err, "email", "password")
		if safeNext(lf.Next) != lf.Next {
			t.Fatalf("login: next %q", lf.Next)
		}
		acf, err := parseAccountForm(form, desc)
		check("account", err)
		if _, sent := acf.Back["f.pw"]; sent {
			t.Fatal("account: a password sent back")
		}
		if port, ok := acf.Fields["port"]; err == nil && ok {
			if x, ok := port.(float64); !ok || math.IsInf(x, 0) || math.IsNaN(x) {
				t.Fatalf("account: port read as %#v", port)
			}
		}
		_, err = parseAppForm(form)
		check("app", err, "url")
		_, err = parseScheduleForm(form)
		check("schedule", err, "every")
	})
}
