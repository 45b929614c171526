package graphql

import (
	"fmt"
	"strings"
)

// actionKind is one kind of mutation action. The table actionKinds is the
// one place that says, per kind, what its fields are named, on what, what
// the schema declares for them and how they run: registration (actions),
// the SDL (writeActions) and the dispatch (group.run) all read it.
type actionKind struct {
	// name is the action's name; on a field's actions {Field} stands for
	// the field's name, capitalized.
	name string
	on   actionScope
	// doc describes the action in the SDL; {field} and {target} stand for
	// the field's name and the name of its target database.
	doc string
	// args are the action's arguments in the SDL (nil, or "": none).
	args func(s *spaceSchema, o *object, a *action) string
	// answers is the GraphQL type the action answers (nil: ActionResult!).
	answers func(o *object) string
	// unselected actions run without the group's selection (they create it).
	unselected bool
	run        func(g *group, c *actionCall) (any, error)
}

// actionScope says what a kind of action is registered for.
type actionScope int

const (
	onDatabase actionScope = iota // once per database
	onState                       // once per database with a workflow state field, on that field
	onRich                        // once per rich-text field
	onRelation                    // once per relation field to a database (not to options)
)

// actionCall is one action being run.
type actionCall struct {
	f    *cfield
	act  *action
	args *inputObj
	ids  []string // the selected entities (nil for unselected kinds)
	path []any
}

// fixedArgs are arguments that do not depend on the database.
func fixedArgs(args string) func(*spaceSchema, *object, *action) string {
	return func(*spaceSchema, *object, *action) string { return args }
}

// batchArgs is the data argument of createBatch and add<Relation>ItemBatch.
func batchArgs(o *object) string { return "data: [" + o.name + sInput + "!]!" }

// actionKinds are the kinds of mutation actions, in schema order: a
// database's own actions first, then those of each of its fields.
var actionKinds = []*actionKind{
	{name: "create", doc: "Creates one entity.", unselected: true,
		args: func(s *spaceSchema, o *object, _ *action) string { return s.inputArgs(o, false) },
		run:  (*group).runCreate},
	{name: "createBatch", doc: "Creates one entity per item of data.", unselected: true,
		args: func(_ *spaceSchema, o *object, _ *action) string { return batchArgs(o) },
		run:  (*group).runCreateBatch},
	{name: "update", doc: "Sets the given fields of the selected entities.",
		args: func(s *spaceSchema, o *object, _ *action) string { return s.inputArgs(o, true) },
		run:  (*group).runUpdate},
	{name: "delete", doc: "Deletes the selected entities.", run: (*group).runDelete},
	{name: "countOfEntities", doc: "The number of selected entities.",
		answers: func(*object) string { return "Int!" },
		run:     func(_ *group, c *actionCall) (any, error) { return int64(len(c.ids)), nil }},
	{name: "listEntities", doc: "The selected entities.",
		answers: func(o *object) string { return "[" + o.name + "!]!" },
		run:     func(g *group, c *actionCall) (any, error) { return g.list(c.f, c.ids, c.path) }},
	{name: "addComment", doc: "Adds a comment (markdown; {{...}} references are filled in per entity) to each selected entity.",
		args: fixedArgs("value: String!"), run: (*group).runAddComment},
	{name: "assignToMe", doc: "Assigns the authenticated user to the selected entities.", run: (*group).runAssignToMe},
	{name: "notifyAssignees", doc: "Notifies the users assigned to each selected entity ({{...}} references are filled in per entity).",
		args: fixedArgs("subject: String!, message: String!"),
		run:  func(g *group, c *actionCall) (any, error) { return g.runNotify(c, g.assigneesOf) }},
	{name: "notifyCreatedBy", doc: "Notifies the user who created each selected entity through this API, when known.",
		args: fixedArgs("subject: String!, message: String!"),
		run:  func(g *group, c *actionCall) (any, error) { return g.runNotify(c, g.creatorOf) }},
	{name: "notifyUsers", doc: "Notifies the users with these e-mail addresses about each selected entity.",
		args: fixedArgs("to: [String!]!, subject: String!, message: String!"),
		run: func(g *group, c *actionCall) (any, error) {
			to, err := recipients(argValue(c.args, "to"))
			if err != nil {
				return nil, err
			}
			return g.runNotify(c, func(string) ([]string, error) { return to, nil })
		}},
	{name: "moveToFinalState", on: onState, doc: "Moves the selected entities to the final state of their workflow field {field}.",
		run: (*group).runFinalState},
	{name: "addFileFromUrl", doc: "Downloads the file at url (http or https, public addresses only, size and time limited) and attaches it to each selected entity.",
		args: fixedArgs("name: String!, url: String!"), run: (*group).runAddFile},
	{name: "attachPdfUsingTemplate", doc: "Renders the template ({{...}} references filled in per entity) as a PDF document and attaches it to each selected entity.",
		args: fixedArgs("value: String!, name: String"), run: (*group).runAttachPdf},

	{name: "appendContentTo{Field}", on: onRich, doc: "Appends markdown ({{...}} references are filled in per entity) to the rich text {field}.",
		args: fixedArgs("value: String!"),
		run:  func(g *group, c *actionCall) (any, error) { return g.runWriteRich(c, richAppend) }},
	{name: "prependContentTo{Field}", on: onRich, doc: "Prepends markdown ({{...}} references are filled in per entity) to the rich text {field}.",
		args: fixedArgs("value: String!"),
		run:  func(g *group, c *actionCall) (any, error) { return g.runWriteRich(c, richPrepend) }},
	{name: "overwriteContentOf{Field}", on: onRich, doc: "Overwrites markdown ({{...}} references are filled in per entity) to the rich text {field}.",
		args: fixedArgs("value: String!"),
		run:  func(g *group, c *actionCall) (any, error) { return g.runWriteRich(c, richOverwrite) }},

	{name: "add{Field}Item", on: onRelation, doc: "Creates one {target} and links it through {field} (one per selected entity).",
		args: func(s *spaceSchema, _ *object, a *action) string { return s.inputArgs(a.field.target, false) },
		run:  func(g *group, c *actionCall) (any, error) { return g.runAddItem(c, false) }},
	{name: "add{Field}ItemBatch", on: onRelation, doc: "Creates one {target} per item of data and links them through {field}.",
		args: func(_ *spaceSchema, _ *object, a *action) string { return batchArgs(a.field.target) },
		run:  func(g *group, c *actionCall) (any, error) { return g.runAddItem(c, true) }},
	{name: "link{Field}", on: onRelation, doc: "Links the matching {target} entities through {field}.",
		args: func(s *spaceSchema, _ *object, a *action) string {
			return s.filterArgs(a.field.target) + ", orderBy: [" + a.field.target.name + sOrderBy + "!], limit: Int"
		},
		run: (*group).runLink},
	{name: "unlink{Field}", on: onRelation, doc: "Unlinks the matching {target} entities (all of them without arguments) from {field}.",
		args: func(s *spaceSchema, _ *object, a *action) string { return s.filterArgs(a.field.target) },
		run:  func(g *group, c *actionCall) (any, error) { return g.runUnlink(c, false) }},
	{name: "delete{Field}", on: onRelation, doc: "Deletes the {target} entities linked through {field} (those matching the conditions, when given).",
		args: func(s *spaceSchema, _ *object, a *action) string { return s.filterArgs(a.field.target) },
		run:  func(g *group, c *actionCall) (any, error) { return g.runUnlink(c, true) }},
}

// actions works out the mutation actions of a database from actionKinds.
func (s *spaceSchema) actions(o *object) {
	names := newNamer()
	add := func(k *actionKind, f *field) {
		base := k.name
		if f != nil {
			base = strings.ReplaceAll(base, "{Field}", capitalize(f.name))
		}
		o.actions = append(o.actions, &action{name: names.claim(base, "action", ""), kind: k, field: f})
	}
	state := stateField(o)
	for _, k := range actionKinds {
		switch {
		case k.on == onDatabase:
			add(k, nil)
		case k.on == onState && state != nil:
			add(k, state)
		}
	}
	for _, f := range o.fields {
		on := actionScope(-1)
		switch {
		case f.kind == kRich:
			on = onRich
		case (f.kind == kToOne || f.kind == kList) && !f.target.option:
			on = onRelation
		}
		for _, k := range actionKinds {
			if k.on == on {
				add(k, f)
			}
		}
	}
}

// writeActions writes the <Database>Actions type of o.
func (s *spaceSchema) writeActions(b *sdl, o *object) {
	b.desc("", "Actions on the selected entities of "+o.name+", run in order; create and createBatch make the created entities the ones later actions act on.")
	fmt.Fprintf(b, "type %s%s {\n", o.name, sActions)
	for _, a := range o.actions {
		k := a.kind
		doc := k.doc
		if a.field != nil {
			doc = strings.ReplaceAll(doc, "{field}", a.field.name)
			if a.field.target != nil {
				doc = strings.ReplaceAll(doc, "{target}", a.field.target.name)
			}
		}
		b.desc("  ", doc)
		args, answers := "", "ActionResult!"
		if k.args != nil {
			args = k.args(s, o, a)
		}
		if k.answers != nil {
			answers = k.answers(o)
		}
		if args != "" {
			fmt.Fprintf(b, "  %s(%s): %s\n", a.name, args, answers)
		} else {
			fmt.Fprintf(b, "  %s: %s\n", a.name, answers)
		}
	}
	b.WriteString("}\n\n")
}
