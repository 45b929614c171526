package graphql

import (
	"fmt"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/core"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// Bounds checked on the parsed document before it is validated: GraphQL's
// validation compares the fields of a selection set in pairs (the rule
// OverlappingFieldsCanBeMerged), so its time, memory and errors grow with
// the square of what the bounds below keep small.
const (
	// MaxSameKey is the most fields one response key may name in one
	// selection set, fragments expanded and fields of one key merged at
	// every depth (a key selected twice, through two fragments, ...).
	MaxSameKey = 16
	// MaxFragments is the most fragment definitions of one document.
	MaxFragments = 100
	// MaxValidationErrors is the most validation errors one answer lists;
	// validation stops reporting beyond it and a last error says so.
	MaxValidationErrors = 100
)

// checkDocument bounds the document before validation: the nesting of
// selections (MaxDepth), the fields and fragment spreads of all its
// operations and unused fragment definitions counted at each use of a
// fragment (MaxComplexity), the fields sharing a response key in one merged
// selection set (MaxSameKey) and the fragment definitions (MaxFragments).
// Its own work is bounded by the same count: it stops at the first bound
// crossed.
func (s *Service) checkDocument(doc *ast.QueryDocument) *Error {
	if len(doc.Fragments) > MaxFragments {
		return &Error{Message: fmt.Sprintf("the document defines more than %d fragments", MaxFragments), Extensions: code("QUERY_TOO_COMPLEX")}
	}
	w := &docWalker{doc: doc, maxDepth: s.cfg.MaxDepth, maxCount: s.cfg.MaxComplexity, used: map[string]bool{}}
	for _, op := range doc.Operations {
		if err := w.walk([]ast.SelectionSet{op.SelectionSet}, 1); err != nil {
			return err
		}
	}
	// Fragments no operation uses are validated too: bound them as well.
	for _, f := range doc.Fragments {
		if w.used[f.Name] {
			continue
		}
		if err := w.walk([]ast.SelectionSet{f.SelectionSet}, 1); err != nil {
			return err
		}
	}
	return nil
}

// docWalker walks merged selection sets the way execution merges them:
// every field of one response key together, their sub-selections merged.
type docWalker struct {
	doc      *ast.QueryDocument
	maxDepth int
	maxCount int
	count    int
	used     map[string]bool
}

func (w *docWalker) tooComplex() *Error {
	return &Error{Message: fmt.Sprintf("the query selects more than %d fields (fragments counted at each use)", w.maxCount), Extensions: code("QUERY_TOO_COMPLEX")}
}

// walk checks the selection sets merged into one at depth.
func (w *docWalker) walk(sets []ast.SelectionSet, depth int) *Error {
	if depth > w.maxDepth {
		return &Error{Message: fmt.Sprintf("the query nests deeper than %d levels", w.maxDepth), Extensions: code("QUERY_TOO_DEEP")}
	}
	var keys []string
	byKey := map[string][]*ast.Field{}
	var collect func(set ast.SelectionSet, stack map[string]bool) *Error
	collect = func(set ast.SelectionSet, stack map[string]bool) *Error {
		for _, sel := range set {
			switch x := sel.(type) {
			case *ast.Field:
				if w.count++; w.count > w.maxCount {
					return w.tooComplex()
				}
				key := x.Alias
				if key == "" {
					key = x.Name
				}
				if _, ok := byKey[key]; !ok {
					keys = append(keys, key)
				}
				byKey[key] = append(byKey[key], x)
				if n := len(byKey[key]); n > MaxSameKey {
					e := &Error{Message: fmt.Sprintf("the response key %s is selected more than %d times in one selection set", key, MaxSameKey), Extensions: code("QUERY_TOO_COMPLEX")}
					if x.Position != nil {
						e.Locations = []Location{{Line: x.Position.Line, Column: x.Position.Column}}
					}
					return e
				}
			case *ast.InlineFragment:
				if err := collect(x.SelectionSet, stack); err != nil {
					return err
				}
			case *ast.FragmentSpread:
				if w.count++; w.count > w.maxCount {
					return w.tooComplex()
				}
				w.used[x.Name] = true
				frag := w.doc.Fragments.ForName(x.Name)
				if frag == nil || stack[x.Name] {
					continue // validation reports unknown fragments and cycles
				}
				stack[x.Name] = true
				err := collect(frag.SelectionSet, stack)
				delete(stack, x.Name)
				if err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, set := range sets {
		if err := collect(set, map[string]bool{}); err != nil {
			return err
		}
	}
	for _, k := range keys {
		var subs []ast.SelectionSet
		for _, f := range byKey[k] {
			if len(f.SelectionSet) > 0 {
				subs = append(subs, f.SelectionSet)
			}
		}
		if len(subs) == 0 {
			continue
		}
		if err := w.walk(subs, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// defaultRuleFuncs are GraphQL's validation rules (read only).
var defaultRuleFuncs = rules.NewDefaultRules().GetInner()

// validate runs GraphQL's validation rules on doc, keeping at most
// MaxValidationErrors errors: past them, rules still run (the document's
// bounds keep their work small) but their errors are dropped unbuilt, and a
// last error says that validation stopped listing them.
func validate(schema *ast.Schema, doc *ast.QueryDocument) []*Error {
	n := 0
	rs := rules.NewRules()
	for name, fn := range defaultRuleFuncs {
		rs.AddRule(name, func(observers *core.Events, addError core.AddErrFunc) {
			fn(observers, func(options ...core.ErrorOption) {
				if n++; n > MaxValidationErrors {
					return
				}
				addError(options...)
			})
		})
	}
	errs := validator.ValidateWithRules(schema, doc, rs)
	out := make([]*Error, 0, len(errs)+1)
	for _, e := range errs {
		out = append(out, fromGQLError(e, "GRAPHQL_VALIDATION_FAILED")...)
	}
	if n > MaxValidationErrors {
		out = append(out, &Error{Message: fmt.Sprintf("the query has more than %d validation errors; the others are not listed", MaxValidationErrors), Extensions: code("GRAPHQL_VALIDATION_FAILED")})
	}
	return out
}
