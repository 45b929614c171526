package appkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
)

func TestAccountFieldOf_Get(t *testing.T) {
	t.Parallel()
	text := appkit.TextAccountField("server", "Server", "d")
	num := appkit.NumberAccountField("port", "Port", "d")
	flag := appkit.BoolAccountField("tls", "TLS", "d")
	a := appkit.Account{"server": "db.example", "port": "5432", "tls": "true", "blank": "", "n": 7.5, "b": true, "word": "maybe"}
	if v, ok := text.Get(a); v != "db.example" || !ok {
		t.Errorf("text = %q %v", v, ok)
	}
	if v, ok := num.Get(a); v != 5432 || !ok {
		t.Errorf("number from text = %v %v", v, ok)
	}
	if v, ok := flag.Get(a); !v || !ok {
		t.Errorf("bool from text = %v %v", v, ok)
	}
	for _, tc := range []struct {
		name string
		got  func() (any, bool)
		want any
		ok   bool
	}{
		{"absent", func() (any, bool) { return appkit.TextAccountField("x", "X", "d").Get(a) }, "", false},
		{"empty text is none", func() (any, bool) { return appkit.TextAccountField("blank", "X", "d").Get(a) }, "", false},
		{"number as text", func() (any, bool) { return appkit.TextAccountField("n", "X", "d").Get(a) }, "7.5", true},
		{"number", func() (any, bool) { return appkit.NumberAccountField("n", "X", "d").Get(a) }, 7.5, true},
		{"not a number", func() (any, bool) { return appkit.NumberAccountField("word", "X", "d").Get(a) }, 0.0, false},
		{"bool", func() (any, bool) { return appkit.BoolAccountField("b", "X", "d").Get(a) }, true, true},
		{"not a bool", func() (any, bool) { return appkit.BoolAccountField("word", "X", "d").Get(a) }, false, false},
		{"json.Number", func() (any, bool) {
			return appkit.NumberAccountField("j", "X", "d").Get(appkit.Account{"j": json.Number("12")})
		}, 12.0, true},
	} {
		if v, ok := tc.got(); v != tc.want || ok != tc.ok {
			t.Errorf("%s: got %v %v, want %v %v", tc.name, v, ok, tc.want, tc.ok)
		}
	}
}

// A handle's methods return a copy: a package-level handle is never
// changed by a use.
func TestAccountFieldOf_copies(t *testing.T) {
	t.Parallel()
	opt := appkit.TokenAuthToken.Optional().Default("x")
	if appkit.TokenAuthToken.Field().Optional || appkit.TokenAuthToken.Field().Value != "" {
		t.Fatalf("TokenAuthToken changed: %+v", appkit.TokenAuthToken.Field())
	}
	if f := opt.Field(); !f.Optional || f.Value != "x" || !f.Secret || f.Type != appkit.FieldPassword {
		t.Fatalf("copy = %+v", f)
	}
	if f := appkit.TextAccountField("a", "A", "d").Secret().Field(); !f.Secret {
		t.Fatal("Secret did not mark the field")
	}
}

// Fields declared with handles make the form, their values are read with
// the same handles, and a secret one is masked in every answer.
func TestForm_declaresAndReads(t *testing.T) {
	t.Parallel()
	server := appkit.TextAccountField("server", "Server", "The server's address")
	key := appkit.SecretAccountField("key", "API key", "Settings, API")
	link := appkit.AuthField{ID: "help", Name: "Help", Type: appkit.FieldLink, Description: "d", Value: "https://example.com/help"}
	app := &appkit.App{ID: "a", Name: "A", Version: "1", Logger: quietLogger(),
		Auth: []appkit.Auth{{ID: "key", Name: "Key", Fields: appkit.Form(server, key.Optional(), link),
			Validate: func(ctx context.Context, a appkit.Account) (*appkit.Validation, error) {
				s, _ := server.Get(a)
				k, _ := key.Get(a)
				if k != "open-sesame" {
					return nil, appkit.InvalidAccount("key %s refused by %s", k, s)
				}
				return &appkit.Validation{Name: s}, nil
			}}},
		Actions: []appkit.Action{{ID: "x", Name: "X", Run: noRun}}}
	h := testapp.Handler(t, app)
	d := call(t, h, "GET", "/", "")
	fields := d.body["authentication"].([]any)[0].(map[string]any)["fields"].([]any)
	var ids []string
	for _, f := range fields {
		m := f.(map[string]any)
		ids = append(ids, fmt.Sprintf("%s:%s:%v", m["id"], m["type"], m["optional"]))
	}
	if got := strings.Join(ids, " "); got != "server:text:<nil> key:password:true help:link:<nil>" {
		t.Fatalf("fields = %s", got)
	}
	if r := call(t, h, "POST", "/validate", `{"id":"key","fields":{"server":"db1","key":"open-sesame"}}`); r.status != 200 || r.body["name"] != "db1" {
		t.Fatalf("validate = %d %s", r.status, r.raw)
	}
	r := call(t, h, "POST", "/validate", `{"id":"key","fields":{"server":"db1","key":"wrong-key-value"}}`)
	if r.status != 401 || bytes.Contains(r.raw, []byte("wrong-key-value")) || !bytes.Contains(r.raw, []byte("db1")) {
		t.Fatalf("refused = %d %s, want 401 naming the server and masking the key", r.status, r.raw)
	}
}

// TokenAuth's token is read with TokenAuthToken in handlers.
func TestTokenAuthToken(t *testing.T) {
	t.Parallel()
	var got string
	app := &appkit.App{ID: "a", Name: "A", Version: "1", Logger: quietLogger(),
		Auth: []appkit.Auth{appkit.TokenAuth("Token", "Your token", func(ctx context.Context, tok string) (string, error) { return "n", nil })},
		Actions: []appkit.Action{{ID: "x", Name: "X", Run: func(ctx context.Context, r *appkit.ActionRequest) error {
			got, _ = appkit.TokenAuthToken.Get(r.Account)
			return nil
		}}}}
	h := testapp.Handler(t, app)
	if r := call(t, h, "POST", "/api/v1/automations/action/execute", `{"action":{"action":"x"},"account":{"token":"t-1"}}`); r.status != 200 || got != "t-1" {
		t.Fatalf("execute = %d %s, token %q", r.status, r.raw, got)
	}
	if r := call(t, h, "POST", "/validate", `{"id":"token","fields":{"token":""}}`); r.status != 401 {
		t.Fatalf("an empty token: %d %s", r.status, r.raw)
	}
	d := call(t, h, "GET", "/", "")
	f := d.body["authentication"].([]any)[0].(map[string]any)["fields"].([]any)[0].(map[string]any)
	if f["id"] != "token" || f["description"] != "Your token" || f["type"] != "password" {
		t.Fatalf("token field = %v", f)
	}
}

// Arguments declared with handles: required unless Optional, read with
// Get; "" counts as no value.
func TestArgOf(t *testing.T) {
	t.Parallel()
	to := appkit.TextArg("to", "To").Describe("The recipient")
	text := appkit.TextAreaArg("text", "Text").Templated().Optional()
	type got struct {
		to, text string
		hasText  bool
	}
	var g got
	app := &appkit.App{ID: "a", Name: "A", Version: "1", Logger: quietLogger(), Auth: []appkit.Auth{appkit.NoAuth()},
		Actions: []appkit.Action{{ID: "send", Name: "Send", Args: appkit.ArgList(to, text), Run: func(ctx context.Context, r *appkit.ActionRequest) error {
			g.to, _ = to.Get(r.Args)
			g.text, g.hasText = text.Get(r.Args)
			return nil
		}}}}
	h := testapp.Handler(t, app)
	d := call(t, h, "GET", "/", "")
	args, _ := json.Marshal(d.body["actions"].([]any)[0].(map[string]any)["args"])
	if want := `[{"description":"The recipient","id":"to","name":"To","type":"text"},{"id":"text","name":"Text","textTemplateSupported":true,"type":"textArea"}]`; string(args) != want {
		t.Fatalf("args = %s\nwant %s", args, want)
	}
	if r := call(t, h, "POST", "/api/v1/automations/action/execute", `{"action":{"action":"send","args":{"to":"ada","text":""}},"account":{}}`); r.status != 200 || g != (got{"ada", "", false}) {
		t.Fatalf("execute = %d %s, got %+v", r.status, r.raw, g)
	}
	if r := call(t, h, "POST", "/api/v1/automations/action/execute", `{"action":{"action":"send","args":{"to":42,"text":"hi"}},"account":{}}`); r.status != 200 || g != (got{"42", "hi", true}) {
		t.Fatalf("execute = %d %s, got %+v", r.status, r.raw, g)
	}
	if r := call(t, h, "POST", "/api/v1/automations/action/execute", `{"action":{"action":"send","args":{"text":"hi"}},"account":{}}`); r.status != 400 {
		t.Fatalf("without the required argument: %d %s", r.status, r.raw)
	}
}

// Since applies the declared margin; Any says whether a filter narrows the
// request, whatever the app's filters are.
func TestDeltaHelpers(t *testing.T) {
	t.Parallel()
	type seenReq struct {
		since time.Time
		delta bool
		any   bool
	}
	var s seenReq
	tag := appkit.MultiDropdownFilter("tags", "Tags", nil).Optional()
	owner := appkit.TextFilter("owner", "Owner").Optional()
	app := &appkit.App{ID: "a", Name: "A", Version: "1", Logger: quietLogger(), Auth: []appkit.Auth{appkit.NoAuth()},
		Sync: &appkit.Sync{DeltaMargin: 90 * time.Minute, Filters: []appkit.Filter{tag, owner}, Types: []appkit.Type{{ID: "t", Name: "T", Delta: true,
			Data: appkit.All(func(ctx context.Context, r *appkit.DataRequest) ([]struct{ ID, Name string }, error) {
				s.since, s.delta = r.Since()
				s.any = r.Filter.Any()
				return nil, nil
			})}}}}
	h := testapp.Handler(t, app)
	last := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		body string
		want seenReq
	}{
		{`{"requestedType":"t"}`, seenReq{}},
		{`{"requestedType":"t","lastSynchronizedAt":"2026-05-01T12:00:00Z"}`, seenReq{last.Add(-90 * time.Minute), true, false}},
		{`{"requestedType":"t","lastSynchronizedAt":"2026-05-01T12:00:00Z","filter":{"tags":[],"owner":"","other":"x"}}`, seenReq{last.Add(-90 * time.Minute), true, false}},
		{`{"requestedType":"t","filter":{"tags":["a"]}}`, seenReq{any: true}},
		{`{"requestedType":"t","filter":{"owner":"ada"}}`, seenReq{any: true}},
	} {
		s = seenReq{}
		if r := call(t, h, "POST", "/api/v1/synchronizer/data", tc.body); r.status != 200 {
			t.Fatalf("%s: %d %s", tc.body, r.status, r.raw)
		}
		if !s.since.Equal(tc.want.since) || s.delta != tc.want.delta || s.any != tc.want.any {
			t.Errorf("%s: got %+v, want %+v", tc.body, s, tc.want)
		}
	}
	app.Sync.DeltaMargin = -time.Second
	bad := &appkit.App{ID: "a", Name: "A", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()}, Sync: app.Sync}
	if err := bad.Check(); err == nil || !strings.Contains(err.Error(), "DeltaMargin -1s is negative") {
		t.Fatalf("Check = %v", err)
	}
}

type everyKind struct {
	ID       int64      `appkit:"id"`
	Name     string     `appkit:"name"`
	Done     bool       `appkit:"done"`
	Points   int        `appkit:"points"`
	Small    uint8      `appkit:"small"`
	Estimate float64    `appkit:"estimate"`
	Ratio    float32    `appkit:"ratio"`
	At       time.Time  `appkit:"at"`
	Due      appkit.Day `appkit:"due"`
	Tags     []string   `appkit:"tags"`
	Owner    *string    `appkit:"owner,ref=user"`
	Seen     *time.Time `appkit:"seen"`
	Skipped  string     `appkit:"-"`
}

// DecodeItem reads back what the encoder sent, for every kind of value.
func TestDecodeItem_roundTrip(t *testing.T) {
	t.Parallel()
	owner := "u1"
	seen := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC)
	items := []everyKind{
		{ID: 7, Name: "a", Done: true, Points: -3, Small: 200, Estimate: 1.25, Ratio: 0.5, At: time.Date(2026, 6, 1, 9, 30, 0, 0, time.UTC),
			Due: appkit.Day{Year: 2026, Month: 6, Day: 2}, Tags: []string{"x", "y"}, Owner: &owner, Seen: &seen},
		{ID: 8, Name: "zero values"},
	}
	nop := zerolog.Nop()
	app := &appkit.App{ID: "a", Name: "A", Version: "1", Logger: &nop, Auth: []appkit.Auth{appkit.NoAuth()},
		Sync: &appkit.Sync{Types: []appkit.Type{
			{ID: "t", Name: "T", Data: appkit.All(func(context.Context, *appkit.DataRequest) ([]everyKind, error) { return items, nil })},
			{ID: "user", Name: "U", Data: noItems[struct{ ID, Name string }]()},
		}}}
	r := call(t, testapp.Handler(t, app), "POST", "/api/v1/synchronizer/data", `{"requestedType":"t"}`)
	wire := r.body["items"].([]any)
	for i, w := range wire {
		got, err := appkit.DecodeItem[everyKind](w.(map[string]any))
		if err != nil {
			t.Fatalf("item %d: %v", i, err)
		}
		if !reflect.DeepEqual(got, items[i]) {
			t.Errorf("item %d:\ngot  %+v\nwant %+v", i, got, items[i])
		}
	}
	for _, tc := range []struct {
		item  map[string]any
		field string
	}{
		{map[string]any{"points": 1.5}, "points"},
		{map[string]any{"small": 300.0}, "small"},
		{map[string]any{"done": "maybe"}, "done"},
		{map[string]any{"at": "yesterday"}, "at"},
		{map[string]any{"due": "2026-06-01T00:00:00Z"}, "due"},
		{map[string]any{"tags": []any{"a", 1.0}}, "tags"},
		{map[string]any{"name": 3.0}, "name"},
	} {
		_, err := appkit.DecodeItem[everyKind](tc.item)
		if !errors.Is(err, appkit.ErrItemDecode) || !strings.Contains(err.Error(), fmt.Sprintf("field %q", tc.field)) {
			t.Errorf("%v: err = %v, want ErrItemDecode naming %s", tc.item, err, tc.field)
		}
	}
	if _, err := appkit.DecodeItem[int](nil); !errors.Is(err, appkit.ErrItemDecode) {
		t.Errorf("DecodeItem[int]: %v", err)
	}
}
