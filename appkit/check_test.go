package appkit_test

import (
	"context"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit"
)

func TestCheckRejectsBadDeclarations(t *testing.T) {
	noop := appkit.Pages(func(context.Context, *appkit.DataRequest, *struct{}) (*appkit.Page[struct{}], error) { return nil, nil })
	run := func(context.Context, *appkit.ActionRequest) error { return nil }
	validate := func(context.Context, appkit.Account) (*appkit.Validation, error) { return nil, nil }
	basicType := func(id string, fields ...appkit.Field) appkit.Type {
		return appkit.Type{ID: id, Name: id, Fields: append([]appkit.Field{appkit.ID("ID"), appkit.Text("name", "Name")}, fields...), Data: noop}
	}
	base := func() *appkit.App {
		return &appkit.App{ID: "x", Name: "x", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()},
			Sync: &appkit.Sync{Types: []appkit.Type{basicType("a"), basicType("b")}}}
	}
	tests := []struct {
		name   string
		mutate func(a *appkit.App)
		want   string // substring of the error; "" means valid
	}{
		{"valid", func(a *appkit.App) {}, ""},
		{"no authentication", func(a *appkit.App) { a.Auth = nil }, "no authentication declared"},
		{"no name", func(a *appkit.App) { a.Name = "" }, "name is empty"},
		{"nothing to serve", func(a *appkit.App) { a.Sync = nil }, "neither Sync nor Actions"},
		{"auth without validate", func(a *appkit.App) { a.Auth = []appkit.Auth{{ID: "token", Name: "T"}} }, `"token": Validate is nil`},
		{"auth declared twice", func(a *appkit.App) {
			a.Auth = []appkit.Auth{{ID: "k", Name: "K", Validate: validate}, {ID: "k", Name: "K2", Validate: validate}}
		}, `"k": declared twice`},
		{"reserved oauth2 id without flow", func(a *appkit.App) { a.Auth = []appkit.Auth{{ID: "oauth2", Name: "O"}} }, "reserved for OAuth 2"},
		{"reserved oauth id without flow", func(a *appkit.App) { a.Auth = []appkit.Auth{{ID: "oauth", Name: "O"}} }, "reserved for OAuth 1"},
		{"oauth with its own Validate", func(a *appkit.App) { a.Auth = []appkit.Auth{{ID: "oauth2", Name: "O", Validate: validate}} }, "validated by the flow"},
		{"no id", func(a *appkit.App) { a.ID = "" }, "app: id is empty"},
		{"auth field without description", func(a *appkit.App) {
			a.Auth = []appkit.Auth{{ID: "k", Name: "K", Validate: validate, Fields: []appkit.AuthField{{ID: "key", Name: "Key", Type: appkit.FieldText}}}}
		}, `field "key" has no description`},
		{"cursor that is not an object", func(a *appkit.App) {
			a.Sync.Types[0].Data = appkit.Pages(func(context.Context, *appkit.DataRequest, *int) (*appkit.Page[int], error) { return nil, nil })
		}, `type "a": page cursor type int does not encode to a JSON object`},
		{"map cursor is fine", func(a *appkit.App) {
			a.Sync.Types[0].Data = appkit.Pages(func(context.Context, *appkit.DataRequest, *map[string]int) (*appkit.Page[map[string]int], error) {
				return nil, nil
			})
		}, ""},
		{"datalist on a text filter", func(a *appkit.App) {
			a.Sync.Filters = []appkit.Filter{{ID: "f", Title: "F", Type: appkit.FieldText, Datalist: true}}
			a.Sync.Datalist = func(context.Context, *appkit.DatalistRequest) ([]appkit.Option, error) { return nil, nil }
		}, "apply to list and multidropdown"},
		{"default of the wrong type", func(a *appkit.App) {
			a.Sync.Filters = []appkit.Filter{{ID: "n", Title: "N", Type: appkit.FieldNumber, Default: "many"}}
		}, `filter "n": default value "many" does not fit type number`},
		{"default of the right type", func(a *appkit.App) {
			a.Sync.Filters = []appkit.Filter{{ID: "n", Title: "N", Type: appkit.FieldNumber, Default: 3}, {ID: "b", Title: "B", Type: appkit.FieldBool, Default: true}}
		}, ""},
		{"none with fields", func(a *appkit.App) {
			a.Auth = []appkit.Auth{{ID: "none", Name: "None", Fields: []appkit.AuthField{{ID: "x", Name: "X", Type: appkit.FieldText, Description: "d"}}}}
		}, "takes none"},
		{"link without value", func(a *appkit.App) {
			a.Auth = []appkit.Auth{{ID: "k", Name: "K", Validate: validate, Fields: []appkit.AuthField{{ID: "doc", Name: "Doc", Type: appkit.FieldLink, Description: "d"}}}}
		}, `link field "doc" has no value`},
		{"highlightText without editorMode", func(a *appkit.App) {
			a.Auth = []appkit.Auth{{ID: "k", Name: "K", Validate: validate, Fields: []appkit.AuthField{{ID: "q", Name: "Q", Type: appkit.FieldHighlightText, Description: "d"}}}}
		}, `highlightText field "q" needs editorMode`},
		{"unknown auth field type", func(a *appkit.App) {
			a.Auth = []appkit.Auth{{ID: "k", Name: "K", Validate: validate, Fields: []appkit.AuthField{{ID: "q", Name: "Q", Type: "slider", Description: "d"}}}}
		}, `unknown type "slider"`},
		{"oauth field without flow", func(a *appkit.App) {
			a.Auth = []appkit.Auth{{ID: "k", Name: "K", Validate: validate, Fields: []appkit.AuthField{{ID: "o", Name: "O", Type: appkit.FieldOAuth, Description: "d"}}}}
		}, "has no OAuth flow"},
		{"type without id field", func(a *appkit.App) {
			a.Sync.Types = []appkit.Type{{ID: "a", Name: "A", Fields: []appkit.Field{appkit.Text("name", "Name")}, Data: noop}}
		}, `type "a": has no "id" field`},
		{"type without name field", func(a *appkit.App) {
			a.Sync.Types = []appkit.Type{{ID: "a", Name: "A", Fields: []appkit.Field{appkit.ID("ID")}, Data: noop}}
		}, `type "a": has no "name" field`},
		{"id field of wrong kind", func(a *appkit.App) {
			a.Sync.Types = []appkit.Type{{ID: "a", Name: "A", Fields: []appkit.Field{appkit.Text("id", "ID"), appkit.Text("name", "N")}, Data: noop}}
		}, `field "id" must have type id`},
		{"type without data handler", func(a *appkit.App) { a.Sync.Types[0].Data = nil }, `type "a": Data handler is nil`},
		{"type declared twice", func(a *appkit.App) { a.Sync.Types[1].ID = "a" }, `type "a": declared twice`},
		{"field declared twice", func(a *appkit.App) { a.Sync.Types[0] = basicType("a", appkit.Text("name", "Again")) }, `field "name" declared twice`},
		{"subtype on wrong kind", func(a *appkit.App) { a.Sync.Types[0] = basicType("a", appkit.Number("n", "N").As(appkit.SubURL)) }, `subType "url" does not apply to type "number"`},
		{"unknown subtype", func(a *appkit.App) { a.Sync.Types[0] = basicType("a", appkit.Text("n", "N").As("colour")) }, `unknown subType "colour"`},
		{"relation to undeclared type", func(a *appkit.App) { a.Sync.Types[0] = basicType("a", appkit.Ref("c", "C", "c", "As")) }, `relation targets undeclared type "c"`},
		{"relation declared on both sides", func(a *appkit.App) {
			a.Sync.Types = []appkit.Type{basicType("a", appkit.Ref("b", "B", "b", "As")), basicType("b", appkit.Refs("as", "As", "a", "B"))}
		}, "declare a relation on one side only"},
		{"relation declared twice on one side", func(a *appkit.App) {
			a.Sync.Types[0] = basicType("a", appkit.Ref("b", "B", "b", "As"), appkit.Ref("b2", "B", "b", "As"))
		}, "already declared"},
		{"bad filter type", func(a *appkit.App) {
			a.Sync.Filters = []appkit.Filter{{ID: "f", Title: "F", Type: appkit.FieldPassword}}
		}, `type "password" is not a filter type`},
		{"filter without title", func(a *appkit.App) { a.Sync.Filters = []appkit.Filter{{ID: "f", Type: appkit.FieldText}} }, "id and title are required"},
		{"datalist without handler", func(a *appkit.App) {
			a.Sync.Filters = []appkit.Filter{{ID: "f", Title: "F", Type: appkit.FieldList, Datalist: true}}
		}, "Sync.Datalist is nil"},
		{"datalist_requires unknown filter", func(a *appkit.App) {
			a.Sync.Filters = []appkit.Filter{{ID: "f", Title: "F", Type: appkit.FieldList, DatalistRequires: []string{"g"}}}
		}, `datalist_requires names "g"`},
		{"datalist_requires on text", func(a *appkit.App) {
			a.Sync.Filters = []appkit.Filter{{ID: "g", Title: "G", Type: appkit.FieldText}, {ID: "f", Title: "F", Type: appkit.FieldText, DatalistRequires: []string{"g"}}}
		}, "apply to list and multidropdown"},
		{"incomplete webhooks", func(a *appkit.App) { a.Sync.Webhooks = &appkit.Webhooks{} }, "Webhooks needs Install, Delete, Verify and Transform"},
		{"action without run", func(a *appkit.App) { a.Actions = []appkit.Action{{ID: "x", Name: "X"}} }, `action "x": Run is nil`},
		{"action arg of bad type", func(a *appkit.App) {
			a.Actions = []appkit.Action{{ID: "x", Name: "X", Run: run, Args: []appkit.Arg{{ID: "n", Name: "N", Type: "number"}}}}
		}, `argument "n": type "number" is not text or textArea`},
		{"action declared twice", func(a *appkit.App) {
			a.Actions = []appkit.Action{{ID: "x", Name: "X", Run: run}, {ID: "x", Name: "Y", Run: run}}
		}, `action "x": declared twice`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := base()
			tc.mutate(a)
			err := a.Check()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Check() = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check() = %v, want an error containing %q", err, tc.want)
			}
			if _, herr := a.Handler(); herr == nil {
				t.Fatalf("Handler() built an invalid app")
			}
		})
	}
}

func TestCheckReportsEveryProblem(t *testing.T) {
	a := &appkit.App{Sync: &appkit.Sync{Types: []appkit.Type{{ID: "a", Name: "A"}}}}
	err := a.Check()
	if err == nil {
		t.Fatal("Check() = nil")
	}
	for _, want := range []string{"name is empty", "version is empty", "no authentication", `has no "id" field`, "Data handler is nil"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
