package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// syncChecks are skipped together when synchronization cannot be checked.
var syncChecks = []string{
	CheckConfig, CheckSyncUniqueIDs, CheckFilters, CheckDatalist, CheckDatalistField, CheckDatalistDependsOn,
	CheckFilterValidate, CheckFilterInvalid, CheckFilterInvalidStatus, CheckSchemaTypes, CheckSchemaIDName, CheckSchemaFieldTypes,
	CheckSchemaRelations, CheckSchemaRelOnce, CheckSchemaUnknown, CheckPageShape, CheckPagingEnds,
	CheckCursorRepeats, CheckPageRepeats, CheckItemsSchema, CheckItemsExtra, CheckItemsWireForm, CheckIDsUnique, CheckDeterministic,
	CheckDelta, CheckSyncTypeMixed, CheckDeltaDeclared,
}

// skipAll records every check of ids as skipped for why.
func (r *runner) skipAll(ids []string, why string) {
	for _, id := range ids {
		r.skip(id, "", why)
	}
}

// syncServed reports whether the config endpoint answered a config.
func (r *runner) syncServed() bool { return r.config != nil }

// syncTypes returns the types the run synchronizes: those of Config.Types
// (or every type) of the config answer, at most Config.MaxTypes of them.
func (r *runner) syncTypes() []string {
	if r.config == nil {
		return r.cfg.Types
	}
	if r.types == nil {
		r.types = []string{}
		for _, t := range r.config.Types {
			if len(r.cfg.Types) > 0 && !slices.Contains(r.cfg.Types, t.ID) {
				continue
			}
			if len(r.types) == r.cfg.MaxTypes {
				r.typesLeft++
				continue
			}
			r.types = append(r.types, t.ID)
		}
	}
	return r.types
}

// filterValues returns the configured filter values (never nil).
func (r *runner) filterValues() map[string]any {
	out := map[string]any{}
	for k, v := range r.cfg.Filter {
		out[k] = v
	}
	return out
}

// datalistFilter returns the id of the first filter fed by a datalist.
func (r *runner) datalistFilter() string {
	if r.config == nil {
		return ""
	}
	for _, f := range r.config.Filters {
		if f.Datalist {
			return f.ID
		}
	}
	return ""
}

// Whether the config endpoint answered a config, as far as the run knows.
const (
	configUnknown = iota // not asked: no valid account, or no answer
	configAnswered
	configRefused
)

// checkResponsibility checks responsibleFor against what the app serves.
func (r *runner) checkResponsibility(config int) {
	rf := r.desc.ResponsibleFor
	var ps []problem
	if !rf.DataSynchronization && !rf.Automations {
		ps = append(ps, problem{"responsibleFor.dataSynchronization or responsibleFor.automations true", "neither"})
	}
	if rf.DataSynchronization && config == configRefused {
		ps = append(ps, problem{"a config answer (responsibleFor.dataSynchronization is true)", "POST " + protocol.PathConfig + " did not answer 200 with an object"})
	}
	if rf.Automations && len(r.desc.Actions) == 0 {
		ps = append(ps, problem{"at least one action (responsibleFor.automations is true)", "no actions"})
	}
	r.verdict(CheckDescriptorResponsib, "", ps)
}

// checkSync checks config, filters, datalists, schema and data.
func (r *runner) checkSync(ctx context.Context) {
	if !r.desc.ResponsibleFor.DataSynchronization {
		r.checkResponsibility(configUnknown)
		r.skipAll(syncChecks, "responsibleFor.dataSynchronization is not true")
		return
	}
	if !r.accountOK {
		r.checkResponsibility(configUnknown)
		r.skipAll(syncChecks, "no valid account (accounts.validate did not pass)")
		return
	}
	a := r.post(ctx, protocol.PathConfig, map[string]any{"account": r.account})
	if !a.ok() {
		r.checkResponsibility(configUnknown)
		r.skipAll(syncChecks, "POST "+protocol.PathConfig+" did not answer (see transport.answers)")
		return
	}
	raw, err := decodeMap(a)
	if err != nil {
		r.checkResponsibility(configRefused)
		r.fail(CheckConfig, "", "200 {types, filters}", err.Error())
		r.skipAll(syncChecks[1:], "no config")
		return
	}
	r.checkResponsibility(configAnswered)
	var dup []problem
	r.verdict(CheckConfig, "", configProblems(raw, &dup))
	var cfg protocol.ConfigResponse
	_ = json.Unmarshal(a.body, &cfg)
	r.config = &cfg
	if _, ok := raw["filters"]; ok {
		r.verdict(CheckFilters, "", filterProblems(raw, &dup))
	} else {
		r.skip(CheckFilters, "", "the config declares no filters")
	}
	r.verdict(CheckSyncUniqueIDs, "", dup)
	if len(r.syncTypes()) == 0 {
		r.skipAll(syncChecks[slices.Index(syncChecks, CheckDatalist):], "no types to synchronize")
		return
	}
	r.checkDatalists(ctx)
	r.checkFilterValidate(ctx)
	if !r.checkSchema(ctx) {
		r.skipAll(dataChecks, "no schema")
		return
	}
	r.checkData(ctx)
}

// configProblems checks the config answer; empty or repeated type ids and
// a config without types go to dup (sync.unique-ids).
func configProblems(raw map[string]any, dup *[]problem) []problem {
	var ps []problem
	want(raw, "", "types", "array", &ps)
	types := objects(raw, "types", &ps)
	if _, isArr := raw["types"].([]any); isArr && len(types) == 0 {
		*dup = append(*dup, problem{"at least one type", "types: []"})
	}
	seen := map[string]bool{}
	for i, t := range types {
		where := fmt.Sprintf("types[%d].", i)
		wantKeys(t, where, &ps, "id:string", "name:string")
		if id, _ := t["id"].(string); id != "" {
			if seen[id] {
				*dup = append(*dup, problem{where + "id: unique", fmt.Sprintf("%q twice", id)})
			}
			seen[id] = true
		} else if _, isString := t["id"].(string); isString {
			*dup = append(*dup, problem{where + "id: not empty", `""`})
		}
	}
	wantKeys(raw, "", &ps, "filters?:array", "webhooks?:object")
	if w, ok := raw["webhooks"].(map[string]any); ok {
		want(w, "webhooks.", "enabled", "boolean", &ps)
	}
	return ps
}

// filterProblems checks the config's filters; repeated filter ids and a
// datalist depending on itself go to dup (sync.unique-ids).
func filterProblems(raw map[string]any, dup *[]problem) []problem {
	var ps []problem
	filters := objects(raw, "filters", &ps)
	ids := map[string]bool{}
	for _, f := range filters {
		if id, ok := f["id"].(string); ok {
			ids[id] = true
		}
	}
	seen := map[string]bool{}
	for i, f := range filters {
		where := fmt.Sprintf("filters[%d].", i)
		wantKeys(f, where, &ps, "id:string", "title:string", "type:string")
		for _, k := range []string{"datalist", "optional", "secured"} {
			wantOptional(f, where, k, "boolean", &ps)
		}
		id, _ := f["id"].(string)
		if id != "" {
			if seen[id] {
				*dup = append(*dup, problem{where + "id: unique", fmt.Sprintf("%q twice", id)})
			}
			seen[id] = true
		}
		typ, isString := f["type"].(string)
		if isString && (!authFieldTypes[typ] || typ == "password") {
			ps = append(ps, problem{where + "type: a filter type (text, number, bool, datebox, date, list, multidropdown, highlightText)", fmt.Sprintf("%q", typ)})
		}
		if m, _ := f["editorMode"].(string); typ == "highlightText" && m != "json" && m != "sql" {
			ps = append(ps, problem{where + `editorMode: "json" or "sql" (type highlightText)`, describeValue(f["editorMode"], f["editorMode"] != nil)})
		}
		if req, ok := f["datalist_requires"]; ok {
			list, isArr := req.([]any)
			if !isArr {
				ps = append(ps, problem{where + "datalist_requires: array of filter ids", describeValue(req, true)})
			}
			for _, e := range list {
				switch s, _ := e.(string); {
				case !ids[s]:
					ps = append(ps, problem{where + "datalist_requires: ids of filters of the config", describeValue(e, true)})
				case s == id:
					*dup = append(*dup, problem{where + "datalist_requires: ids of other filters", describeValue(e, true)})
				}
			}
		}
	}
	return ps
}

// checkDatalists asks every datalist filter for its list, dependents after
// the lists they depend on.
func (r *runner) checkDatalists(ctx context.Context) {
	var lists []protocol.Filter
	for _, f := range r.config.Filters {
		if f.Datalist {
			lists = append(lists, f)
		}
	}
	if len(lists) == 0 {
		r.skipAll([]string{CheckDatalist, CheckDatalistField, CheckDatalistDependsOn}, "no filter is fed by a datalist")
		return
	}
	byID := map[string]protocol.Filter{}
	for _, f := range r.config.Filters {
		byID[f.ID] = f
	}
	first := map[string]any{} // a value of each answered list
	done := map[string]bool{}
	dependent := false
	// Each pass asks for the lists whose dependencies are known; a pass
	// that asks for none ends the loop (the rest wait on lists that gave no
	// value), and so does a stopped run.
	for progress := true; progress && !r.stopped; {
		progress = false
		for _, f := range lists {
			if r.stopped {
				break
			}
			if done[f.ID] || !r.dependenciesKnown(f, first, done) {
				continue
			}
			done[f.ID], progress = true, true
			id := CheckDatalist
			dependsOn := map[string]any{}
			if len(f.DatalistRequires) > 0 {
				id, dependent = CheckDatalistDependsOn, true
				for _, req := range f.DatalistRequires {
					if v, ok := r.cfg.Filter[req]; ok {
						dependsOn[req] = v
					} else if v, ok := first[req]; ok {
						if byID[req].Type == "multidropdown" {
							v = []any{v}
						}
						dependsOn[req] = v
					}
				}
			}
			a := r.post(ctx, protocol.PathDatalist, map[string]any{"types": r.syncTypes(), "account": r.account, "field": f.ID, "dependsOn": dependsOn})
			if !a.ok() {
				r.skip(id, f.ID, "no answer (see transport.answers)")
				continue
			}
			var out map[string]any
			if err := decodeObject(a, &out); err != nil {
				r.fail(id, f.ID, `200 {"items": [{"title", "value"}]}`, err.Error())
				continue
			}
			var ps []problem
			want(out, "", "items", "array", &ps)
			for i, it := range objects(out, "items", &ps) {
				where := fmt.Sprintf("items[%d].", i)
				want(it, where, "title", "string", &ps)
				if v, ok := it["value"]; !ok || v == nil {
					ps = append(ps, problem{where + "value: present", describeValue(v, ok)})
				} else if _, ok := first[f.ID]; !ok {
					first[f.ID] = v
				}
			}
			r.verdict(id, f.ID, ps)
		}
	}
	for _, f := range lists {
		if !done[f.ID] {
			dependent = true
			r.skip(CheckDatalistDependsOn, f.ID, "no value of the filters it depends on (give one with --filter)")
		}
	}
	if !dependent {
		r.skip(CheckDatalistDependsOn, "", "no datalist depends on other filters")
	}
	a := r.provoke(ctx, protocol.PathDatalist, map[string]any{"types": r.syncTypes(), "account": r.account, "field": unknownID, "dependsOn": map[string]any{}})
	r.expectError(CheckDatalistField, "", a)
}

// dependenciesKnown reports whether every filter f depends on has a value
// to send: configured, or taken from its answered list.
func (r *runner) dependenciesKnown(f protocol.Filter, first map[string]any, done map[string]bool) bool {
	for _, req := range f.DatalistRequires {
		if _, ok := r.cfg.Filter[req]; ok {
			continue
		}
		if _, ok := first[req]; !ok {
			return false
		}
	}
	return true
}

// invalidFilterValue returns a value that a filter of type typ cannot take.
func invalidFilterValue(typ string) (any, bool) {
	switch typ {
	case "date":
		return map[string]any{"_min": "not a date", "_max": "not a date either"}, true
	case "datebox":
		return "not a date", true
	case "number":
		return "not a number", true
	case "bool":
		return map[string]any{"not": "a boolean"}, true
	}
	return nil, false
}

// checkFilterValidate sends the configured filter (valid) and a provoked
// invalid one to filter/validate.
func (r *runner) checkFilterValidate(ctx context.Context) {
	invalidChecks := []string{CheckFilterInvalid, CheckFilterInvalidStatus}
	a := r.post(ctx, protocol.PathFilterValidate, map[string]any{"types": r.syncTypes(), "filter": r.filterValues(), "account": r.account})
	switch {
	case !a.ok():
		r.skip(CheckFilterValidate, "", "no answer (see transport.answers)")
		r.skipAll(invalidChecks, "no answer to a valid filter")
		return
	case notServed(a):
		why := fmt.Sprintf("the app does not serve filter/validate (%d)", a.status)
		r.skip(CheckFilterValidate, "", why)
		r.skipAll(invalidChecks, why)
		return
	case a.status == http.StatusOK || a.status == http.StatusNoContent:
		r.pass(CheckFilterValidate, "")
	case a.status == http.StatusBadRequest && len(r.unsetRequiredFilters()) > 0:
		// Refusing a filter without a value for a non-optional filter is
		// right: the run's filter is not a valid one.
		why := "the run's filter has no value for the non-optional filters " + strings.Join(r.unsetRequiredFilters(), ", ") + " (give them with --filter)"
		r.skip(CheckFilterValidate, "", why)
		r.skipAll(invalidChecks, why)
		return
	default:
		r.fail(CheckFilterValidate, "", "200 or 204 for the configured filter", a.describe())
		r.skipAll(invalidChecks, "a valid filter is not accepted")
		return
	}
	for _, f := range r.config.Filters {
		bad, ok := invalidFilterValue(f.Type)
		if !ok {
			continue
		}
		values := r.filterValues()
		values[f.ID] = bad
		a := r.provoke(ctx, protocol.PathFilterValidate, map[string]any{"types": r.syncTypes(), "filter": values, "account": r.account})
		b, _ := json.Marshal(bad)
		switch {
		case !a.ok():
			r.skipAll(invalidChecks, "no answer (see transport.answers)")
		case a.status == http.StatusBadRequest:
			r.pass(CheckFilterInvalid, f.ID)
			r.pass(CheckFilterInvalidStatus, f.ID)
		case a.status >= 400:
			r.pass(CheckFilterInvalid, f.ID)
			r.fail(CheckFilterInvalidStatus, f.ID, "400 {message} for the refused value "+string(b), a.describe())
		default:
			r.fail(CheckFilterInvalid, f.ID, "an error status (400 {message}) for the value "+string(b), a.describe())
			r.skip(CheckFilterInvalidStatus, f.ID, "the value was accepted")
		}
		return
	}
	r.skipAll(invalidChecks, "no filter whose type allows an invalid value to be provoked (date, datebox, number, bool)")
}

// unsetRequiredFilters returns the ids of the config's non-optional filters
// that the run's filter leaves without a value.
func (r *runner) unsetRequiredFilters() []string {
	var out []string
	for _, f := range r.config.Filters {
		if v, set := r.cfg.Filter[f.ID]; !f.Optional && (!set || v == nil) {
			out = append(out, f.ID)
		}
	}
	return out
}
