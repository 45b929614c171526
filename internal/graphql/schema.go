package graphql

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/appkitgo/appkit/internal/store"
)

// fieldKind tells how a field of an entity is read, filtered and written.
type fieldKind int

const (
	kID     fieldKind = iota // platform/id: ID!
	kScalar                  // a primitive: String, Int, Float or Boolean
	kRange                   // a date or date-time range: DateRange
	kJSON                    // a JSON value, shown as its JSON text (String)
	kRich                    // a rich-text field: RichText
	kToOne                   // an entity or single-select field: an object
	kList                    // a collection: a list of objects
)

// object is one GraphQL object type of entities: a database of the space,
// or Option (the options of single selects, shared by every enum).
type object struct {
	name   string      // GraphQL type name
	plural string      // find<plural>, and lower-cased the mutation group
	st     *store.Type // nil for Option
	label  string
	option bool
	fields []*field
	byName map[string]*field
	// actions of the mutation group, in schema order (databases only).
	actions []*action
	byStore map[string]*field
}

// field is one field of an object.
type field struct {
	name   string // GraphQL name
	store  string // store field name
	kind   fieldKind
	scalar string // GraphQL scalar of kID, kScalar, kJSON
	prim   string // store primitive of kScalar, kRange, kJSON, kID
	target *object
	desc   string
	sf     *store.Field
}

// action is one field of a database's mutation group.
type action struct {
	name  string
	kind  *actionKind
	field *field // the rich-text or relation field it acts on
}

// Names of the shared types every space schema has.
const (
	tOption     = "Option"
	tRichText   = "RichText"
	tComment    = "Comment"
	tDateRange  = "DateRange"
	tResult     = "ActionResult"
	tEntityRef  = "EntityRef"
	tMe         = "Me"
	tDirection  = "SortDirection"
	tStringF    = "StringFilter"
	tIntF       = "IntFilter"
	tFloatF     = "FloatFilter"
	tBoolF      = "BooleanFilter"
	tIDF        = "IDFilter"
	tRangeF     = "DateRangeFilter"
	tRangeInput = "DateRangeInput"
	tFile       = "File"
	tNote       = "Notification"
)

// Suffixes of the types generated per database.
const (
	sFilter     = "Filter"
	sListFilter = "ListFilter"
	sOrderBy    = "OrderBy"
	sSelector   = "Selector"
	sInput      = "Input"
	sActions    = "Actions"
)

var dbSuffixes = []string{"", sFilter, sListFilter, sOrderBy, sSelector, sInput, sActions}

// reservedTypes may not be taken by a database.
var reservedTypes = []string{"Query", "Mutation", "Subscription", "String", "Int", "Float", "Boolean", "ID",
	tOption, tOption + sFilter, tOption + sListFilter, tOption + sOrderBy, tOption + sSelector,
	tRichText, tComment, tDateRange, tResult, tEntityRef, tMe, tDirection,
	tStringF, tIntF, tFloatF, tBoolF, tIDF, tRangeF, tRangeInput, tFile, tNote}

// reservedFields are field names given to built-in fields or used as
// arguments beside the filter fields of a find (limit, offset, orderBy); a
// store field whose name would be one of them gets a number appended.
var reservedFields = []string{"id", "publicId", "createdAt", "modifiedAt", "comments", "files", "assignees", "limit", "offset", "orderBy", "data"}

// Argument defaults.
const (
	// DefaultLimit is the number of entities a find returns without limit.
	DefaultLimit = 100
)

// spaceSchema is the GraphQL schema of one space at one catalog version.
type spaceSchema struct {
	space   string
	cat     *store.Catalog
	schema  *ast.Schema
	sdl     string
	objects map[string]*object // by GraphQL name
	dbs     []*object          // the space's databases, catalog order
	finds   map[string]*object // find<Plural> → database
	groups  map[string]*object // mutation group name → database
	option  *object
}

// Spaces lists the spaces of the catalog: the <app> part of the names of its
// domain types, sorted.
func Spaces(cat *store.Catalog) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range cat.Types {
		if sp, ok := spaceOf(t); ok && !seen[sp] {
			seen[sp] = true
			out = append(out, sp)
		}
	}
	sort.Strings(out)
	return out
}

func spaceOf(t *store.Type) (string, bool) {
	if t.Kind != store.KindDomain {
		return "", false
	}
	sp, _, ok := strings.Cut(t.Name, "/")
	return sp, ok && sp != ""
}

func localName(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// buildSchema generates the schema of one space from the catalog; ok is
// false when the space has no database.
func buildSchema(cat *store.Catalog, space string) (*spaceSchema, bool, error) {
	s := &spaceSchema{space: space, cat: cat, objects: map[string]*object{}, finds: map[string]*object{}, groups: map[string]*object{}}
	types := newNamer(reservedTypes...)
	for _, t := range cat.Types {
		if sp, ok := spaceOf(t); !ok || sp != space {
			continue
		}
		name := types.claim(pascalName(localName(t.Name)), "Database", dbSuffixes...)
		lbl := t.Label()
		// A label is the database's display name, usually plural already;
		// English plural rules apply to ASCII names only (a transliterated
		// "Задачи" stays Zadachi).
		pl := pascalName(lbl)
		switch {
		case pl == "":
			pl = plural(name)
		case isASCII(lbl):
			pl = plural(pl)
		}
		o := &object{name: name, st: t, label: lbl, plural: pl}
		s.dbs = append(s.dbs, o)
		s.objects[name] = o
	}
	if len(s.dbs) == 0 {
		return nil, false, nil
	}
	// find<Plural> and the mutation groups are unique too.
	roots := newNamer("me", "__schema", "__type", "__typename")
	for _, o := range s.dbs {
		o.plural = roots.claim(o.plural, "Database", "")
		s.finds["find"+o.plural] = o
		s.groups[lowerFirst(o.plural)] = o
	}
	s.option = &object{name: tOption, option: true, plural: "Options"}
	s.option.fields = []*field{
		{name: "id", store: "platform/id", kind: kID, scalar: "ID", prim: store.TUUID, desc: "The option's id."},
		{name: "name", store: "enum/name", kind: kScalar, scalar: "String", prim: store.TText, desc: "The option's name."},
		{name: "rank", store: "platform/rank", kind: kScalar, scalar: "Int", prim: store.TRank, desc: "The option's position."},
	}
	s.option.index()
	byType := map[string]*object{}
	for _, o := range s.dbs {
		byType[o.st.ID] = o
	}
	for _, o := range s.dbs {
		s.fields(o, byType)
	}
	for _, o := range s.dbs {
		s.actions(o)
	}
	s.sdl = s.render()
	schema, err := gqlparser.LoadSchema(&ast.Source{Name: "space " + space, Input: s.sdl, BuiltIn: false})
	if err != nil {
		return nil, false, fmt.Errorf("graphql: schema of space %s: %w", space, err)
	}
	s.schema = schema
	return s, true, nil
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func (o *object) index() {
	o.byName = make(map[string]*field, len(o.fields))
	o.byStore = make(map[string]*field, len(o.fields))
	for _, f := range o.fields {
		o.byName[f.name] = f
		o.byStore[f.store] = f
	}
}

// fields works out the fields of a database.
func (s *spaceSchema) fields(o *object, byType map[string]*object) {
	names := newNamer(reservedFields...)
	cat := s.cat
	for _, f := range o.st.Fields {
		fd := &field{store: f.Name, sf: f, prim: f.Prim}
		switch f.Role {
		case store.RoleID:
			fd.name, fd.kind, fd.scalar, fd.desc = "id", kID, "ID", "The entity's id."
		case store.RolePublicID:
			fd.name, fd.kind, fd.scalar, fd.desc = "publicId", kScalar, "String", "The entity's public id, numbered per database."
		case store.RoleCreated:
			fd.name, fd.kind, fd.scalar, fd.desc = "createdAt", kScalar, "String", "When the entity was created (ISO 8601, UTC)."
		case store.RoleModified:
			fd.name, fd.kind, fd.scalar, fd.desc = "modifiedAt", kScalar, "String", "When the entity was last changed (ISO 8601, UTC)."
		default:
			if f.Hidden() {
				continue
			}
			if !s.fieldKind(fd, f, byType) {
				continue
			}
			base := f.Label()
			if camelName(base) == "" {
				base = localName(f.Name)
			}
			fd.name = names.claim(camelName(base), "field", "")
			fd.desc = fieldDesc(f, cat)
		}
		o.fields = append(o.fields, fd)
	}
	o.index()
}

func fieldDesc(f *store.Field, cat *store.Catalog) string {
	d := f.Label()
	if x := f.Description(); x != "" {
		if d != "" {
			d += ": "
		}
		d += x
	}
	if d != "" {
		d += " "
	}
	return d + "(store field " + f.Name + ", " + cat.TypeName(f) + ")"
}

// fieldKind sets the kind of a primitive or relation field; false leaves
// the field out of the schema (a relation to a type outside the space).
func (s *spaceSchema) fieldKind(fd *field, f *store.Field, byType map[string]*object) bool {
	if f.Role == store.RolePrimitive {
		switch f.Prim {
		case store.TInt, store.TRank:
			fd.kind, fd.scalar = kScalar, "Int"
		case store.TDecimal:
			fd.kind, fd.scalar = kScalar, "Float"
		case store.TBool:
			fd.kind, fd.scalar = kScalar, "Boolean"
		case store.TDateRange, store.TDateTimeRange:
			fd.kind = kRange
		case store.TJSON:
			fd.kind, fd.scalar = kJSON, "String"
		default:
			fd.kind, fd.scalar = kScalar, "String"
		}
		return true
	}
	if f.Role != store.RoleRelation {
		return false
	}
	target := s.cat.Target(f)
	switch {
	case target == nil:
		return false
	case target.Name == store.DocumentType && !f.Collection:
		fd.kind = kRich
		return true
	case target.Kind == store.KindEnum:
		fd.target = s.option
	default:
		fd.target = byType[target.ID]
		if fd.target == nil {
			return false
		}
	}
	fd.kind = kToOne
	if f.Collection {
		fd.kind = kList
	}
	return true
}

// Filterable, orderable and writable fields.

// fieldTypes are the GraphQL types of a field, one for each place it can
// appear; "" where it has none.
type fieldTypes struct {
	filter string // in its object's Filter and Selector
	order  string // in its object's OrderBy
	input  string // in create and update arguments
	output string // on its object
}

// types are f's GraphQL types, one row per kind.
func (f *field) types() fieldTypes {
	switch f.kind {
	case kID:
		return fieldTypes{filter: tIDF, order: tDirection, input: "ID", output: "ID!"}
	case kScalar:
		t := fieldTypes{filter: f.scalar + "Filter", order: tDirection, input: f.scalar, output: f.scalar}
		if f.sf != nil && f.sf.Role != store.RolePrimitive {
			t.input = "" // public id, creation and modification dates
		}
		return t
	case kRange:
		return fieldTypes{filter: tRangeF, order: tDirection, input: tRangeInput, output: tDateRange}
	case kJSON:
		return fieldTypes{input: "String", output: f.scalar}
	case kRich:
		return fieldTypes{input: "String", output: tRichText}
	case kToOne:
		n := f.target.name
		return fieldTypes{filter: n + sFilter, order: n + sOrderBy, input: n + sSelector, output: n}
	case kList:
		n := f.target.name
		return fieldTypes{filter: n + sListFilter, input: n + sSelector, output: "[" + n + "!]!"}
	}
	return fieldTypes{}
}

func (f *field) filterType() string { return f.types().filter }

func (f *field) orderType() string { return f.types().order }

func (f *field) inputType() string { return f.types().input }

func (f *field) outputType() string { return f.types().output }

// SDL rendering.

type sdl struct{ strings.Builder }

func (b *sdl) desc(indent, d string) {
	if d == "" {
		return
	}
	b.WriteString(indent)
	b.WriteString(quoteGraphQL(d))
	b.WriteString("\n")
}

// quoteGraphQL quotes s as a GraphQL string value.
func quoteGraphQL(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// fieldArgs lists "name: type" for each field of o that typeOf gives a
// type, in field order.
func fieldArgs(o *object, typeOf func(*field) string) []string {
	var parts []string
	for _, f := range o.fields {
		if t := typeOf(f); t != "" {
			parts = append(parts, f.name+": "+t)
		}
	}
	return parts
}

// input writes the input type name, described by desc, with its fields
// ("name: type") one a line.
func (b *sdl) input(name, desc string, fields []string) {
	b.desc("", desc)
	fmt.Fprintf(b, "input %s {\n", name)
	for _, f := range fields {
		b.WriteString("  " + f + "\n")
	}
	b.WriteString("}\n\n")
}

func (s *spaceSchema) filterArgs(o *object) string {
	return strings.Join(fieldArgs(o, (*field).filterType), ", ")
}

func (s *spaceSchema) render() string {
	var b sdl
	b.WriteString("schema { query: Query mutation: Mutation }\n\n")
	b.desc("", "Reads of the space "+s.space+".")
	b.WriteString("type Query {\n")
	b.desc("  ", "The user the request is authenticated as.")
	b.WriteString("  me: Me!\n")
	for _, o := range s.dbs {
		b.desc("  ", fmt.Sprintf("Entities of %s (store type %s), filtered by field (conditions combined with AND), ordered by orderBy (default: creation, then id), at most limit (default %d) from offset.", o.display(), o.st.Name, DefaultLimit))
		fmt.Fprintf(&b, "  find%s(%s, orderBy: [%s!], limit: Int = %d, offset: Int = 0): [%s!]\n", o.plural, s.filterArgs(o), o.name+sOrderBy, DefaultLimit, o.name)
	}
	b.WriteString("}\n\n")
	b.desc("", "Changes to the space "+s.space+": each field selects entities by its filter arguments and runs its actions in order.")
	b.WriteString("type Mutation {\n")
	for _, o := range s.dbs {
		b.desc("  ", fmt.Sprintf("Actions on entities of %s selected by the filter, orderBy, limit and offset (default: all of them).", o.display()))
		fmt.Fprintf(&b, "  %s(%s, orderBy: [%s!], limit: Int, offset: Int = 0): %s\n", lowerFirst(o.plural), s.filterArgs(o), o.name+sOrderBy, o.name+sActions)
	}
	b.WriteString("}\n\n")
	b.WriteString(sharedSDL)
	for _, o := range append([]*object{s.option}, s.dbs...) {
		s.renderObject(&b, o)
	}
	return b.String()
}

// listConditions are the fields of a ListFilter that take a list of the
// item type's filters.
var listConditions = []struct{ name, desc string }{
	{"contains", "Every condition is met by some item."},
	{"containsAny", "At least one condition is met by some item."},
	{"notContains", "Not every condition is met by some item (contains, negated)."},
	{"notContainsAny", "No condition is met by any item (containsAny, negated)."},
}

func (o *object) display() string {
	if o.label != "" {
		return o.label
	}
	return o.name
}

func (s *spaceSchema) renderObject(b *sdl, o *object) {
	if o.option {
		b.desc("", "An option of a single select.")
	} else {
		b.desc("", fmt.Sprintf("An entity of %s (store type %s).", o.display(), o.st.Name))
	}
	fmt.Fprintf(b, "type %s {\n", o.name)
	for _, f := range o.fields {
		b.desc("  ", f.desc)
		if f.kind == kList {
			fmt.Fprintf(b, "  %s(%s, orderBy: [%s!], limit: Int, offset: Int = 0): %s\n", f.name, s.filterArgs(f.target), f.target.name+sOrderBy, f.outputType())
			continue
		}
		fmt.Fprintf(b, "  %s: %s\n", f.name, f.outputType())
	}
	if !o.option {
		b.desc("  ", "The comments on the entity, oldest first.")
		b.WriteString("  comments: [Comment!]!\n")
		b.desc("  ", "The files attached to the entity (addFileFromUrl, attachPdfUsingTemplate), oldest first.")
		b.WriteString("  files: [File!]!\n")
		b.desc("  ", "The e-mail addresses of the users assigned to the entity (assignToMe).")
		b.WriteString("  assignees: [String!]!\n")
	}
	b.WriteString("}\n\n")
	// Filter: one condition per field.
	b.input(o.name+sFilter, "Conditions on the fields of "+o.name+", combined with AND.", fieldArgs(o, (*field).filterType))
	b.desc("", "Conditions on the items of a list of "+o.name+".")
	fmt.Fprintf(b, "input %s%s {\n", o.name, sListFilter)
	b.desc("  ", "true: the list is empty; false: it is not.")
	b.WriteString("  isEmpty: Boolean\n")
	for _, c := range listConditions {
		b.desc("  ", c.desc)
		fmt.Fprintf(b, "  %s: [%s%s!]\n", c.name, o.name, sFilter)
	}
	b.WriteString("}\n\n")
	b.input(o.name+sOrderBy, "Sort keys of "+o.name+"; several keys sort by the first, then the next (give a list to fix their order).", fieldArgs(o, (*field).orderType))
	b.input(o.name+sSelector, "Chooses entities of "+o.name+" for a relation: those matching the conditions, in orderBy order, at most limit (a one-to-one field takes the first).",
		append(fieldArgs(o, (*field).filterType), "orderBy: ["+o.name+sOrderBy+"!]", "limit: Int"))
	if o.option {
		return
	}
	b.input(o.name+sInput, "The field values of a new "+o.name+" (relations are chosen by selectors; rich text is markdown; JSON values are JSON text).", fieldArgs(o, (*field).inputType))
	s.writeActions(b, o)
}

// inputArgs are the arguments of create and add<Relation>Item (and,
// without id, of update).
func (s *spaceSchema) inputArgs(o *object, update bool) string {
	return strings.Join(fieldArgs(o, func(f *field) string {
		if update && f.kind == kID {
			return ""
		}
		return f.inputType()
	}), ", ")
}

const sharedSDL = `"The authenticated user."
type Me {
  "The user's e-mail address."
  email: String!
  "The user's notifications, newest first."
  notifications(limit: Int = 50): [Notification!]
}

"A notification sent to a user by an action."
type Notification {
  subject: String!
  message: String!
  "The e-mail address of the user whose action sent it."
  sender: String!
  "The entity it is about."
  entity: EntityRef
  "When it was sent (ISO 8601, UTC)."
  createdAt: String!
}

"A file attached to an entity."
type File {
  id: ID!
  name: String!
  contentType: String!
  size: Int!
  "Where to download it (with the API token)."
  url: String!
  "When it was attached (ISO 8601, UTC)."
  createdAt: String!
}

"A rich-text value in each of its forms."
type RichText {
  "The document tree as JSON text."
  jsonString: String
  "Plain text."
  text: String
  "Markdown (CommonMark with GitHub tables, strikethrough, autolinks, task lists)."
  md: String
  "HTML."
  html: String
}

"A comment on an entity."
type Comment {
  "The document tree as JSON text."
  jsonString: String
  "Plain text."
  text: String
  "Markdown."
  md: String
  "HTML."
  html: String
  "The e-mail address of its author."
  author: String
  "When it was written (ISO 8601, UTC)."
  createdAt: String
}

"A date or date-time range; each end is null when open."
type DateRange {
  start: String
  end: String
}

"A date or date-time range to write."
input DateRangeInput {
  start: String
  end: String
}

"What an action did."
type ActionResult {
  "What was done, in words."
  message: String!
  "The entities acted on."
  entities: [EntityRef!]!
}

"An entity acted on."
type EntityRef {
  id: ID!
  "The database's display name."
  type: String!
}

"Sort direction: empty values come first ascending, last descending."
enum SortDirection {
  ASC
  DESC
}

"Conditions on a String field (contains is a case-insensitive substring test; comparisons are bytewise)."
input StringFilter {
  is: String
  isNot: String
  contains: String
  notContains: String
  greater: String
  greaterOrEquals: String
  less: String
  lessOrEquals: String
  in: [String!]
  notIn: [String!]
  "true: the field is empty; false: it is not."
  isNull: Boolean
}

"Conditions on an Int field."
input IntFilter {
  is: Int
  isNot: Int
  greater: Int
  greaterOrEquals: Int
  less: Int
  lessOrEquals: Int
  in: [Int!]
  notIn: [Int!]
  isNull: Boolean
}

"Conditions on a Float field."
input FloatFilter {
  is: Float
  isNot: Float
  greater: Float
  greaterOrEquals: Float
  less: Float
  lessOrEquals: Float
  in: [Float!]
  notIn: [Float!]
  isNull: Boolean
}

"Conditions on a Boolean field."
input BooleanFilter {
  is: Boolean
  isNull: Boolean
}

"Conditions on an ID field."
input IDFilter {
  is: ID
  isNot: ID
  in: [ID!]
  notIn: [ID!]
  isNull: Boolean
}

"Conditions on the ends of a range."
input DateRangeFilter {
  start: StringFilter
  end: StringFilter
  isNull: Boolean
}

`

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// WorkflowMixin is the mixin that gives a database moveToFinalState.
const WorkflowMixin = "workflow/workflow"

// stateField is the workflow state field of a database with the workflow
// mixin: the single-select field named by the type's workflow/state-field
// meta, else its first single-select field; nil without the mixin.
func stateField(o *object) *field {
	mixins, _ := o.st.Meta["app/mixins"].(map[string]any)
	if on, _ := mixins[WorkflowMixin].(bool); !on {
		return nil
	}
	named, _ := o.st.Meta["workflow/state-field"].(string)
	for _, f := range o.fields {
		if f.kind == kToOne && f.target.option && (named == "" || f.store == named) {
			return f
		}
	}
	return nil
}
