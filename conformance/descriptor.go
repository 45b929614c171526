package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/jsonw"
)

// descriptorDoc is GET / both as raw JSON (for the key and type checks) and
// decoded (for the rest of the run).
type descriptorDoc struct {
	raw map[string]any
	protocol.Descriptor
}

// authFieldTypes are the types of authentication fields and filters.
var authFieldTypes = map[string]bool{
	"text": true, "number": true, "bool": true, "password": true, "link": true, "highlightText": true,
	"datebox": true, "date": true, "oauth": true, "list": true, "multidropdown": true,
}

// checkDescriptor fetches GET / and checks it.
func (r *runner) checkDescriptor(ctx context.Context) {
	a := r.send(ctx, http.MethodGet, protocol.PathDescriptor, nil)
	if !a.ok() {
		r.skip(CheckDescriptorAnswer, "", "GET / did not answer (see transport.answers)")
		return
	}
	var raw map[string]any
	if err := decodeObject(a, &raw); err != nil || raw == nil {
		got := a.describe()
		if err != nil {
			got = err.Error()
		}
		r.fail(CheckDescriptorAnswer, "", "200 with a JSON object", got)
		return
	}
	r.pass(CheckDescriptorAnswer, "")
	d := &descriptorDoc{raw: raw}
	// A descriptor with mistyped keys still decodes as far as it can: each
	// check below looks at the raw keys it is about.
	_ = json.Unmarshal(a.body, &d.Descriptor)
	r.desc = d

	r.verdict(CheckDescriptorRequired, "", descriptorRequired(raw))
	r.verdict(CheckDescriptorSources, "", descriptorSources(raw))
	var dup []problem
	r.verdict(CheckDescriptorAuth, "", descriptorAuth(raw, &dup))
	r.verdict(CheckDescriptorAuthFields, "", descriptorAuthFields(raw, &dup))
	if _, ok := raw["actions"]; ok || d.ResponsibleFor.Automations {
		var spelling []problem
		r.verdict(CheckDescriptorActions, "", descriptorActions(raw, &dup, &spelling))
		r.verdict(CheckDescriptorArgSpell, "", spelling)
	} else {
		r.skip(CheckDescriptorActions, "", "the app declares no actions")
		r.skip(CheckDescriptorArgSpell, "", "the app declares no actions")
	}
	r.verdict(CheckDescriptorUniqueIDs, "", dup)
	var extra []problem
	for _, k := range []string{"id", "type"} {
		if s, ok := raw[k].(string); !ok || s == "" {
			extra = append(extra, problem{"a non-empty string " + k, describeValue(raw[k], ok)})
		}
	}
	r.verdict(CheckDescriptorExtra, "", extra)
}

// describeValue renders a JSON value (or its absence) for a report.
func describeValue(v any, present bool) string {
	if !present {
		return "missing"
	}
	b, _ := json.Marshal(v)
	return jsonw.TypeOf(v) + " " + snippet(b)
}

// want checks that key of obj holds a value of JSON kind kind.
func want(obj map[string]any, where, key, kind string, problems *[]problem) {
	v, ok := obj[key]
	if !ok || jsonw.TypeOf(v) != kind {
		*problems = append(*problems, problem{fmt.Sprintf("%s%s: %s", where, key, kind), describeValue(v, ok)})
	}
}

// wantOptional checks key only when present.
func wantOptional(obj map[string]any, where, key, kind string, problems *[]problem) {
	if _, ok := obj[key]; ok {
		want(obj, where, key, kind, problems)
	}
}

// wantKeys checks keys of obj by specs "key:kind" (required) and
// "key?:kind" (checked only when present), in order.
func wantKeys(obj map[string]any, where string, problems *[]problem, specs ...string) {
	for _, spec := range specs {
		key, kind, _ := strings.Cut(spec, ":")
		if k, optional := strings.CutSuffix(key, "?"); optional {
			wantOptional(obj, where, k, kind, problems)
		} else {
			want(obj, where, key, kind, problems)
		}
	}
}

func descriptorRequired(raw map[string]any) []problem {
	var ps []problem
	for _, k := range []string{"name", "website", "version", "description"} {
		want(raw, "", k, "string", &ps)
	}
	wantKeys(raw, "", &ps, "authentication:array", "sources:array", "responsibleFor:object")
	if rf, ok := raw["responsibleFor"].(map[string]any); ok {
		wantKeys(rf, "responsibleFor.", &ps, "dataSynchronization?:boolean", "automations?:boolean")
	}
	wantOptional(raw, "", "actions", "array", &ps)
	return ps
}

func descriptorSources(raw map[string]any) []problem {
	v, ok := raw["sources"]
	if s, isArr := v.([]any); ok && isArr && len(s) == 0 {
		return nil
	}
	return []problem{{"sources: []", describeValue(v, ok)}}
}

// objects returns the elements of the array at raw[key] that are objects,
// and a problem for each one that is not.
func objects(raw map[string]any, key string, ps *[]problem) []map[string]any {
	arr, _ := raw[key].([]any)
	var out []map[string]any
	for i, e := range arr {
		m, ok := e.(map[string]any)
		if !ok {
			*ps = append(*ps, problem{fmt.Sprintf("%s[%d]: object", key, i), describeValue(e, true)})
			continue
		}
		out = append(out, m)
	}
	return out
}

// descriptorAuth checks the authentications; repeated ids that are not an
// OAuth version go to dup (descriptor.unique-ids).
func descriptorAuth(raw map[string]any, dup *[]problem) []problem {
	var ps []problem
	auths := objects(raw, "authentication", &ps)
	if len(auths) == 0 {
		return append(ps, problem{"at least one authentication", describeValue(raw["authentication"], raw["authentication"] != nil)})
	}
	seen := map[string]bool{}
	for i, a := range auths {
		where := fmt.Sprintf("authentication[%d].", i)
		wantKeys(a, where, &ps, "id:string", "name:string", "description?:string", "fields?:array", "responsibleFor?:object")
		id, _ := a["id"].(string)
		if id == "" {
			continue
		}
		switch {
		case !seen[id]:
		case id == protocol.AuthOAuth1 || id == protocol.AuthOAuth2:
			ps = append(ps, problem{"at most one authentication per OAuth version", fmt.Sprintf("%q twice", id)})
		default:
			*dup = append(*dup, problem{"unique authentication ids", fmt.Sprintf("%q twice", id)})
		}
		seen[id] = true
		if f, ok := a["fields"].([]any); id == protocol.AuthNone && ok && len(f) > 0 {
			ps = append(ps, problem{`authentication "none" without fields`, fmt.Sprintf("%d fields", len(f))})
		}
	}
	return ps
}

// descriptorAuthFields checks the authentications' fields; repeated field
// ids go to dup.
func descriptorAuthFields(raw map[string]any, dup *[]problem) []problem {
	var ps []problem
	var ignored []problem
	for i, a := range objects(raw, "authentication", &ignored) {
		var fps []problem
		fields := objects(a, "fields", &fps)
		for j := range fps {
			fps[j].expected = fmt.Sprintf("authentication[%d].%s", i, fps[j].expected)
		}
		ps = append(ps, fps...)
		seen := map[string]bool{}
		for j, f := range fields {
			where := fmt.Sprintf("authentication[%d].fields[%d].", i, j)
			want(f, where, "id", "string", &ps)
			if _, ok := f["name"]; ok || f["title"] == nil {
				want(f, where, "name", "string", &ps)
			} else {
				want(f, where, "title", "string", &ps)
			}
			wantKeys(f, where, &ps, "type:string", "description:string", "optional?:boolean", "value?:string")
			id, _ := f["id"].(string)
			if id != "" && seen[id] {
				*dup = append(*dup, problem{where + "id: unique within the authentication", fmt.Sprintf("%q twice", id)})
			}
			seen[id] = true
			typ, _ := f["type"].(string)
			if _, isString := f["type"].(string); isString && !authFieldTypes[typ] {
				ps = append(ps, problem{where + "type: one of " + strings.Join(slices.Sorted(maps.Keys(authFieldTypes)), ", "), fmt.Sprintf("%q", typ)})
			}
			if v, _ := f["value"].(string); typ == "link" && v == "" {
				ps = append(ps, problem{where + "value: the link's address (type link)", describeValue(f["value"], f["value"] != nil)})
			}
			if m, _ := f["editorMode"].(string); typ == "highlightText" && m != "json" && m != "sql" {
				ps = append(ps, problem{where + `editorMode: "json" or "sql" (type highlightText)`, describeValue(f["editorMode"], f["editorMode"] != nil)})
			}
		}
	}
	return ps
}

// argTypes are the types of an action's argument, as the protocol spells
// them.
var argTypes = []string{"text", "textArea"}

// argType matches an argument's type case-insensitively (textarea is
// textArea): the protocol's spelling of it, and whether one matched.
func argType(t string) (string, bool) {
	for _, at := range argTypes {
		if strings.EqualFold(t, at) {
			return at, true
		}
	}
	return "", false
}

// descriptorActions checks the actions; repeated action and argument ids go
// to dup, argument types spelled otherwise than the protocol spells them
// (textarea) to spelling.
func descriptorActions(raw map[string]any, dup, spelling *[]problem) []problem {
	var ps []problem
	actions := objects(raw, "actions", &ps)
	seen := map[string]bool{}
	for i, a := range actions {
		where := fmt.Sprintf("actions[%d].", i)
		wantKeys(a, where, &ps, "action:string", "name:string", "description?:string", "args:array")
		if id, _ := a["action"].(string); id != "" {
			if seen[id] {
				*dup = append(*dup, problem{where + "action: unique", fmt.Sprintf("%q twice", id)})
			}
			seen[id] = true
		}
		var aps []problem
		args := objects(a, "args", &aps)
		for j := range aps {
			aps[j].expected = where + aps[j].expected
		}
		ps = append(ps, aps...)
		argSeen := map[string]bool{}
		for j, g := range args {
			gw := fmt.Sprintf("%sargs[%d].", where, j)
			wantKeys(g, gw, &ps, "id:string", "name:string", "description?:string", "textTemplateSupported?:boolean")
			t, _ := g["type"].(string)
			switch at, ok := argType(t); {
			case !ok:
				ps = append(ps, problem{gw + `type: "text" or "textArea"`, describeValue(g["type"], g["type"] != nil)})
			case t != at:
				*spelling = append(*spelling, problem{fmt.Sprintf("%stype: %q, as the protocol spells it", gw, at),
					fmt.Sprintf("%q, read as %q (argument types are matched case-insensitively)", t, at)})
			}
			if id, _ := g["id"].(string); id != "" {
				if argSeen[id] {
					*dup = append(*dup, problem{gw + "id: unique within the action", fmt.Sprintf("%q twice", id)})
				}
				argSeen[id] = true
			}
		}
	}
	return ps
}
