package appkit_test

import (
	"context"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit"
)

func TestCheckRejectsBadDeclarations(t *testing.T) {
	t.Parallel()
	noop := noItems[appkit.Item]()
	validate := func(context.Context, appkit.Account) (*appkit.Validation, error) { return nil, nil }
	options := func(context.Context, *appkit.DatalistRequest) ([]appkit.Option, error) { return nil, nil }
	basicType := func(id string, fields ...appkit.Field) appkit.Type {
		return appkit.Type{ID: id, Name: id, Fields: append([]appkit.Field{appkit.ID(), appkit.Text("name", "Name")}, fields...), Data: noop}
	}
	structType := func(data appkit.DataHandler) appkit.Type { return appkit.Type{ID: "a", Name: "As", Data: data} }
	base := func() *appkit.App {
		return &appkit.App{ID: "x", Name: "x", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()},
			Sync: &appkit.Sync{Types: []appkit.Type{basicType("a"), basicType("b")}}}
	}
	type good struct {
		ID   string
		Name string
		B    string `appkit:"b,ref=b"`
	}
	type noName struct{ ID string }
	type badKind struct {
		ID, Name string
		Size     complex64
	}
	type badTag struct {
		ID, Name string
		Colour   string `appkit:"colour,shiny"`
	}
	type markdownTag struct {
		ID, Name string
		Body     string `appkit:"body,markdown"`
	}
	type optionTag struct {
		ID, Name string
		State    string `appkit:"state,single-select,option=a|b"`
	}
	type reserved struct {
		ID, Name string
		Action   string `appkit:"__syncAction"`
	}
	type refOnNumber struct {
		ID, Name string
		B        int `appkit:"b,ref=b"`
	}
	type subTypeMismatch struct {
		ID, Name string
		N        int `appkit:"n,md"`
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
		{"oauth 1 with its own Validate", func(a *appkit.App) { a.Auth = []appkit.Auth{{ID: "oauth", Name: "O", Validate: validate}} }, "validated by the flow"},
		{"no id", func(a *appkit.App) { a.ID = "" }, "app: id is empty"},
		{"auth field without description", func(a *appkit.App) {
			a.Auth = []appkit.Auth{{ID: "k", Name: "K", Validate: validate, Fields: []appkit.AuthField{{ID: "key", Name: "Key", Type: appkit.FieldText}}}}
		}, `field "key" has no description`},
		{"cursor that is not an object", func(a *appkit.App) {
			a.Sync.Types[0].Data = appkit.Pages(func(context.Context, *appkit.DataRequest, *int) (*appkit.Page[appkit.Item, int], error) {
				return nil, nil
			})
		}, `type "a": page cursor type int does not encode to a JSON object`},
		{"map cursor is fine", func(a *appkit.App) {
			a.Sync.Types[0].Data = appkit.Pages(func(context.Context, *appkit.DataRequest, *map[string]int) (*appkit.Page[appkit.Item, map[string]int], error) {
				return nil, nil
			})
		}, ""},
		{"default of the wrong type", func(a *appkit.App) {
			a.Sync.Filters = []appkit.Filter{appkit.NumberFilter("n", "N").Default("many")}
		}, `filter "n": default value "many" does not fit type number`},
		{"default of the right type", func(a *appkit.App) {
			a.Sync.Filters = []appkit.Filter{appkit.NumberFilter("n", "N").Default(3), appkit.BoolFilter("b", "B").Default(true)}
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
		{"unknown auth field type, the nearest suggested", func(a *appkit.App) {
			a.Auth = []appkit.Auth{{ID: "k", Name: "K", Validate: validate, Fields: []appkit.AuthField{{ID: "q", Name: "Q", Type: "pasword", Description: "d"}}}}
		}, `unknown type "pasword" (did you mean "password"?)`},
		{"oauth field without flow", func(a *appkit.App) {
			a.Auth = []appkit.Auth{{ID: "k", Name: "K", Validate: validate, Fields: []appkit.AuthField{{ID: "o", Name: "O", Type: appkit.FieldOAuth, Description: "d"}}}}
		}, "has no OAuth flow"},
		{"type without id field", func(a *appkit.App) {
			a.Sync.Types = []appkit.Type{{ID: "a", Name: "A", Fields: []appkit.Field{appkit.Text("name", "Name")}, Data: noop}}
		}, `type "a": has no "id" field`},
		{"type without name field", func(a *appkit.App) {
			a.Sync.Types = []appkit.Type{{ID: "a", Name: "A", Fields: []appkit.Field{appkit.ID()}, Data: noop}}
		}, `type "a": has no "name" field`},
		{"id field of wrong kind", func(a *appkit.App) {
			a.Sync.Types = []appkit.Type{{ID: "a", Name: "A", Fields: []appkit.Field{appkit.Text("id", "ID"), appkit.Text("name", "N")}, Data: noop}}
		}, `field "id" must have type id`},
		{"type without data handler", func(a *appkit.App) { a.Sync.Types[0].Data = nil }, `type "a": Data handler is nil`},
		{"type declared twice", func(a *appkit.App) { a.Sync.Types[1].ID = "a" }, `type "a": declared twice`},
		{"field declared twice", func(a *appkit.App) { a.Sync.Types[0] = basicType("a", appkit.Text("name", "Again")) }, `field "name" declared twice`},
		{"subtype on wrong kind", func(a *appkit.App) { a.Sync.Types[0] = basicType("a", appkit.Number("n", "N").As(appkit.SubURL)) }, `subType "url" does not apply to type "number"`},
		{"unknown subtype", func(a *appkit.App) { a.Sync.Types[0] = basicType("a", appkit.Text("n", "N").As("colour")) }, `unknown subType "colour"`},
		{"map schema declares __syncAction", func(a *appkit.App) { a.Sync.Types[0] = basicType("a", appkit.Text("__syncAction", "S")) }, "__syncAction is reserved"},
		{"relation to undeclared type", func(a *appkit.App) { a.Sync.Types[0] = basicType("a", appkit.Ref("c", "C", "c")) }, `relation targets undeclared type "c"`},
		{"relation declared on both sides", func(a *appkit.App) {
			a.Sync.Types = []appkit.Type{basicType("a", appkit.Ref("b", "B", "b").Inverse("As")), basicType("b", appkit.Refs("as", "As", "a").Inverse("B"))}
		}, "declare a relation on one side only"},
		{"relation declared on both sides, default inverse names", func(a *appkit.App) {
			a.Sync.Types = []appkit.Type{basicType("a", appkit.Ref("b", "b", "b")), basicType("b", appkit.Refs("as", "a", "a"))}
		}, "declare a relation on one side only"},
		{"relation declared twice on one side", func(a *appkit.App) {
			a.Sync.Types[0] = basicType("a", appkit.Ref("b", "B", "b"), appkit.Ref("b2", "B", "b"))
		}, "already declared"},
		{"items neither struct nor Item", func(a *appkit.App) { a.Sync.Types[0] = structType(noItems[string]()) }, "items of Go type string"},
		{"Item type without a schema", func(a *appkit.App) { a.Sync.Types[0] = appkit.Type{ID: "a", Name: "A", Data: noop} }, "neither Fields nor FieldsFunc"},
		{"struct type", func(a *appkit.App) { a.Sync.Types[0] = structType(noItems[good]()) }, ""},
		{"struct type with Fields too", func(a *appkit.App) {
			a.Sync.Types[0] = structType(noItems[good]())
			a.Sync.Types[0].Fields = []appkit.Field{appkit.ID()}
		}, "the schema comes from the item struct"},
		{"struct without name", func(a *appkit.App) { a.Sync.Types[0] = structType(noItems[*noName]()) }, `type "a": has no "name" field`},
		{"struct field of no kind", func(a *appkit.App) { a.Sync.Types[0] = structType(noItems[badKind]()) }, "struct field Size (\"size\"): type complex64 has no schema kind"},
		{"struct tag option unknown", func(a *appkit.App) { a.Sync.Types[0] = structType(noItems[badTag]()) }, `unknown tag option "shiny"`},
		{"struct tag option unknown, the nearest suggested", func(a *appkit.App) { a.Sync.Types[0] = structType(noItems[markdownTag]()) }, `unknown tag option "markdown" (did you mean "md"?)`},
		{"struct tag key unknown, the nearest key suggested", func(a *appkit.App) { a.Sync.Types[0] = structType(noItems[optionTag]()) }, `unknown tag option "option=a|b" (did you mean "options"?)`},
		{"unknown subtype, the nearest suggested", func(a *appkit.App) { a.Sync.Types[0] = basicType("a", appkit.Text("n", "N").As("multiselect")) }, `unknown subType "multiselect" (did you mean "multi-select"?)`},
		{"struct declares __syncAction", func(a *appkit.App) { a.Sync.Types[0] = structType(noItems[reserved]()) }, "__syncAction is reserved"},
		{"struct relation on a number", func(a *appkit.App) { a.Sync.Types[0] = structType(noItems[refOnNumber]()) }, "a relation needs a string or []string field"},
		{"struct subType against its Go type", func(a *appkit.App) { a.Sync.Types[0] = structType(noItems[subTypeMismatch]()) }, `subType "md" does not apply to type "number"`},
		{"filter without title", func(a *appkit.App) { a.Sync.Filters = []appkit.Filter{appkit.TextFilter("f", "")} }, "id and title are required"},
		{"highlightText filter without editorMode", func(a *appkit.App) {
			a.Sync.Filters = []appkit.Filter{appkit.HighlightTextFilter("q", "Query", "")}
		}, "highlightText needs editorMode json or sql"},
		{"filter declared twice", func(a *appkit.App) {
			a.Sync.Filters = []appkit.Filter{appkit.TextFilter("f", "F"), appkit.NumberFilter("f", "G")}
		}, `filter "f": declared twice`},
		{"Requires a filter not in Sync.Filters", func(a *appkit.App) {
			a.Sync.Filters = []appkit.Filter{appkit.ListFilter("f", "F", options).Requires(appkit.TextFilter("g", "G"))}
		}, `Requires names "g", which is not another filter of Sync.Filters`},
		{"Requires without a datalist", func(a *appkit.App) {
			g := appkit.TextFilter("g", "G")
			a.Sync.Filters = []appkit.Filter{g, appkit.ListFilter("f", "F", nil).Requires(g)}
		}, "Requires applies to a filter with a datalist"},
		{"dependent datalist", func(a *appkit.App) {
			g := appkit.ListFilter("g", "G", options)
			a.Sync.Filters = []appkit.Filter{g, appkit.MultiDropdownFilter("f", "F", options).Requires(g)}
		}, ""},
		{"incomplete webhooks", func(a *appkit.App) { a.Sync.Webhooks = &appkit.Webhooks{} }, "Webhooks needs Install, Delete, Verify and Transform"},
		{"action without run", func(a *appkit.App) { a.Actions = []appkit.Action{{ID: "x", Name: "X"}} }, `action "x": Run is nil`},
		{"action arg of bad type", func(a *appkit.App) {
			a.Actions = []appkit.Action{{ID: "x", Name: "X", Run: noRun, Args: []appkit.Arg{{ID: "n", Name: "N", Type: "number"}}}}
		}, `argument "n": type "number" is not text or textArea`},
		{"action declared twice", func(a *appkit.App) {
			a.Actions = []appkit.Action{{ID: "x", Name: "X", Run: noRun}, {ID: "x", Name: "Y", Run: noRun}}
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
	t.Parallel()
	a := &appkit.App{Sync: &appkit.Sync{Types: []appkit.Type{{ID: "a", Name: "A"}, {ID: "b", Name: "B", Data: noItems[appkit.Item](),
		Fields: []appkit.Field{appkit.Text("x", ""), appkit.Number("y", "Y").As(appkit.SubMarkdown), appkit.Text("z", "Z").As("odd")}}}}}
	err := a.Check()
	if err == nil {
		t.Fatal("Check() = nil")
	}
	for _, want := range []string{"name is empty", "version is empty", "no authentication", "Data handler is nil",
		`type "b": field "x": the name is empty`, `type "b": field "y": subType "md" does not apply`, `type "b": field "z": unknown subType "odd"`,
		`type "b": has no "id" field`, `type "b": has no "name" field`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}
