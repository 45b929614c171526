package appkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// App declares a custom app. Fill in the fields, then serve it with
// [App.Handler], [Serve] or [ListenAndServe]; the declaration is checked
// once, when the handler is built, and every problem is reported with its
// place (see [App.Check]).
type App struct {
	// ID, Name, Version, Description and Website make the descriptor (all
	// are sent; ID, Name and Version must not be empty).
	ID string
	// DescriptorType is the descriptor's "type" key; empty means "custom".
	DescriptorType string
	// Name is the app's display name.
	Name string
	// Version is the app's version string.
	Version string
	// Description says what the app does.
	Description string
	// Website is the app's home page.
	Website string

	// Auth lists the ways to set up an account; at least one ([NoAuth] for
	// none), at most one per OAuth version.
	Auth []Auth

	// Sync, when set, makes this a synchronization app.
	Sync *Sync

	// Actions, when set, makes this an external-action app.
	Actions []Action

	// Logo is served at GET /logo; the zero Logo answers 204.
	Logo Logo

	// Logger receives one line per request; nil logs JSON to stderr, or a
	// human-readable console format when stderr is a terminal.
	Logger *zerolog.Logger

	// MaxBodyBytes limits request bodies; 0 means 10 MiB.
	MaxBodyBytes int64

	// Observe, when set, gives the app metrics and traces (see [Observe]).
	Observe *Observe

	once    sync.Once
	handler http.Handler
	err     error
	state   *built
}

// Sync declares the synchronization side of an app.
type Sync struct {
	// Types lists the synchronizable types.
	Types []Type
	// Filters are offered to the user; each is a handle built with
	// [TextFilter], [MultiDropdownFilter], ... and read with its Get method;
	// [Filters.Any] says whether a request sets any of them.
	Filters []Filter
	// DeltaMargin is the safety margin that [DataRequest.Since] takes off
	// LastSynchronizedAt, for clock skew between the service and the
	// upstream and for changes made while the last run was reading (an hour
	// is a common choice). It must not be negative.
	DeltaMargin time.Duration
	// ValidateFilter checks filter values beyond their types (which appkit
	// checks itself); an error answers 400 with its message.
	ValidateFilter func(ctx context.Context, req *Request) error
	// Webhooks, when set, enables webhook-based delta synchronization.
	Webhooks *Webhooks
	// Resource streams a file behind authentication for file fields whose
	// URL is app://resource?...: the service posts the URL's parameters to
	// /api/v1/synchronizer/resource with the account.
	Resource func(ctx context.Context, req *ResourceRequest) (*Resource, error)
}

// Type declares one synchronizable type. Its schema comes from one place:
// the item struct of its Data handler (see "Struct types" in the package
// doc), or, for items of type [Item], Fields or FieldsFunc.
type Type struct {
	// ID is the type's id in config, schema and data requests.
	ID string
	// Name is the type's display name.
	Name string
	// Default pre-selects the type in the service's form.
	Default bool
	// Fields is the static schema of a type whose items are [Item]s. Every
	// type needs an "id" field of kind id and a "name" field.
	Fields []Field
	// FieldsFunc computes the schema of a type whose items are [Item]s per
	// request (from account and filter) instead; its result is checked like
	// Fields, per request. Items of such a type are sent with no schema at
	// hand: their Go values in wire form (see [Item]).
	FieldsFunc func(ctx context.Context, req *SchemaRequest) ([]Field, error)
	// Delta says the type can answer delta pages (changes since the last
	// run): the schema gets the reserved __syncAction field, and its handler
	// chooses per request between a full and a delta page. A type without
	// Delta never answers a delta page.
	Delta bool
	// Data loads the type's items page by page: [Pages] or [All].
	Data DataHandler
}

// Action declares an external action.
type Action struct {
	// ID is the action's identity ("action" on the wire).
	ID string
	// Name is shown in the automation editor.
	Name string
	// Description, optional, is shown as help.
	Description string
	// Args declares the arguments. A call without a declared argument that
	// is not Optional is refused with 400; arguments the service sends that
	// are not declared (left over from an older version) are dropped.
	Args []Arg
	// Run executes the action; success answers 200 {}.
	Run func(ctx context.Context, req *ActionRequest) error
}

// ArgType is the type of an action argument.
type ArgType string

// The action argument types.
const (
	ArgText     ArgType = "text"
	ArgTextArea ArgType = "textArea"
)

// Arg declares an action argument.
type Arg struct {
	// ID is the key of the value in the call's args.
	ID string
	// Name is the argument's label.
	Name string
	// Description, optional, is shown as help.
	Description string
	// Type is ArgText or ArgTextArea.
	Type ArgType
	// TextTemplate says the argument accepts text templates: the service
	// renders {{...}} references against an entity before the call.
	TextTemplate bool
	// Optional lets a call leave the argument out.
	Optional bool
}

// Webhooks declares webhook support: all four handlers are required.
type Webhooks struct {
	// Install installs a webhook, or updates the one in req.Webhook (nil on a
	// first install), and returns the object that the service stores.
	Install func(ctx context.Context, req *WebhookRequest) (*Webhook, error)
	// Delete removes req.Webhook.
	Delete func(ctx context.Context, req *WebhookRequest) error
	// Verify checks an incoming event (typically its signature) and returns
	// the id of the webhook it belongs to.
	Verify func(ctx context.Context, ev *WebhookEvent) (string, error)
	// Transform turns a verified event into changes by type id, applied with
	// delta rules (items are SET, Removed ids deleted).
	Transform func(ctx context.Context, ev *WebhookEvent) (Changes, error)
}

// Webhook is the webhook object that the service stores and sends back.
type Webhook struct {
	// ID identifies the webhook; required.
	ID string
	// Events optionally lists the events the webhook receives.
	Events []string
	// Data holds whatever else the app needs to find the webhook again.
	Data json.RawMessage
}

func (w *Webhook) wire() *protocol.Webhook {
	if w == nil {
		return nil
	}
	return &protocol.Webhook{ID: w.ID, Events: w.Events, Data: w.Data}
}

func webhookOf(w *protocol.Webhook) *Webhook {
	if w == nil {
		return nil
	}
	return &Webhook{ID: w.ID, Events: w.Events, Data: w.Data}
}

// WebhookRequest is the request of a webhook install or delete.
type WebhookRequest struct {
	Request
	// URL is where the external system should send events, when the
	// service gives one.
	URL string
	// Webhook is the stored webhook object, nil on a first install.
	Webhook *Webhook
}

// WebhookEvent is an event that arrived from the external system.
type WebhookEvent struct {
	// Request is empty for Verify (the service sends no account there).
	Request
	// Params are the event's parameters (its headers).
	Params map[string]any
	// Payload is the event's payload as the service sent it: JSON. When the
	// service forwards the external system's body as a JSON string, Payload
	// holds that string quoted; use [WebhookEvent.Body] for the raw bytes to
	// check a signature over.
	Payload []byte
}

// Body returns the event's body: the unquoted text when Payload is a JSON
// string, else Payload itself.
func (ev *WebhookEvent) Body() []byte {
	if len(ev.Payload) > 0 && ev.Payload[0] == '"' {
		var s string
		if err := json.Unmarshal(ev.Payload, &s); err == nil {
			return []byte(s)
		}
	}
	return ev.Payload
}

// ResourceRequest asks for a file behind authentication.
type ResourceRequest struct {
	Request
	// Params are the parameters of the file's app://resource?... URL.
	Params map[string]any
}

// Resource is a streamed file. Body is closed by appkit, also when the
// handler returns an error with it.
type Resource struct {
	// ContentType of the file; empty means application/octet-stream.
	ContentType string
	// Size is the length in bytes; 0 or negative means unknown (the answer
	// is then chunked).
	Size int64
	// Name, when set, is sent as the attachment's file name.
	Name string
	// Body is the file's content.
	Body io.ReadCloser
}

// Logo is the app's logo: build it with [LogoSVG] or [LogoURL].
type Logo struct {
	svg []byte
	url string
}

// LogoSVG serves these SVG bytes as image/svg+xml.
func LogoSVG(svg []byte) Logo { return Logo{svg: svg} }

// LogoURL redirects (302) to the logo's address.
func LogoURL(url string) Logo { return Logo{url: url} }

// built is the checked, indexed form of a declaration.
type built struct {
	descriptor protocol.Descriptor
	config     protocol.ConfigResponse
	auths      map[string]*Auth
	types      map[string]*builtType
	filters    map[string]*filterSpec
	actions    map[string]*Action
	secrets    map[string]bool
}

// builtType is a checked type with its schema and encoder.
type builtType struct {
	decl *Type
	// fields is the static schema (nil with FieldsFunc).
	fields []Field
	// structs encodes struct items; maps encodes Items of a static schema;
	// both nil: Items of a computed schema.
	structs *structSchema
	maps    *mapSchema
}

// Check reports every problem of the declaration, joined. A nil error means
// every endpoint the app announces has its handler.
func (a *App) Check() error {
	_, err := a.build()
	return err
}

func (a *App) build() (*built, error) {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	b := &built{
		auths: map[string]*Auth{}, types: map[string]*builtType{}, filters: map[string]*filterSpec{},
		actions: map[string]*Action{}, secrets: map[string]bool{},
	}
	if a.ID == "" {
		add("app: id is empty")
	}
	if a.Name == "" {
		add("app: name is empty")
	}
	if a.Version == "" {
		add("app: version is empty")
	}
	if len(a.Auth) == 0 {
		add("app: no authentication declared (use appkit.NoAuth() for none)")
	}
	for i := range a.Auth {
		au := &a.Auth[i]
		if err := au.check(); err != nil {
			errs = append(errs, err)
			continue
		}
		if _, dup := b.auths[au.ID]; dup {
			switch au.ID {
			case protocol.AuthOAuth1:
				add("authentication %q: at most one OAuth 1 authentication is allowed", au.ID)
			case protocol.AuthOAuth2:
				add("authentication %q: at most one OAuth 2 authentication is allowed", au.ID)
			default:
				add("authentication %q: declared twice", au.ID)
			}
			continue
		}
		b.auths[au.ID] = au
		for _, f := range au.Fields {
			if f.Secret || f.Type == FieldPassword {
				b.secrets[f.ID] = true
			}
		}
	}
	if a.Sync == nil && len(a.Actions) == 0 {
		add("app: declares neither Sync nor Actions: nothing to serve")
	}
	if s := a.Sync; s != nil {
		errs = append(errs, a.buildSync(b, s)...)
	}
	for i := range a.Actions {
		ac := &a.Actions[i]
		if ac.ID == "" || ac.Name == "" {
			add("action %q: id and name are required", ac.ID)
			continue
		}
		if _, dup := b.actions[ac.ID]; dup {
			add("action %q: declared twice", ac.ID)
			continue
		}
		if ac.Run == nil {
			add("action %q: Run is nil", ac.ID)
		}
		wa := protocol.Action{Action: ac.ID, Name: ac.Name, Description: ac.Description, Args: []protocol.ActionArg{}}
		seen := map[string]bool{}
		for _, arg := range ac.Args {
			if arg.ID == "" || arg.Name == "" {
				add("action %q: an argument has an empty id or name", ac.ID)
			}
			if seen[arg.ID] {
				add("action %q: argument %q declared twice", ac.ID, arg.ID)
			}
			seen[arg.ID] = true
			if arg.Type != ArgText && arg.Type != ArgTextArea {
				add("action %q: argument %q: type %q is not text or textArea", ac.ID, arg.ID, arg.Type)
			}
			wa.Args = append(wa.Args, protocol.ActionArg{ID: arg.ID, Name: arg.Name, Description: arg.Description, Type: string(arg.Type), TextTemplateSupported: arg.TextTemplate})
		}
		b.actions[ac.ID] = ac
		b.descriptor.Actions = append(b.descriptor.Actions, wa)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	d := &b.descriptor
	d.ID, d.Type, d.Name, d.Version, d.Description, d.Website = a.ID, a.DescriptorType, a.Name, a.Version, a.Description, a.Website
	if d.Type == "" {
		d.Type = "custom"
	}
	d.Sources = []any{}
	d.ResponsibleFor = protocol.ResponsibleFor{DataSynchronization: a.Sync != nil, Automations: len(a.Actions) > 0}
	if d.Actions == nil {
		d.Actions = []protocol.Action{}
	}
	for i := range a.Auth {
		d.Authentication = append(d.Authentication, a.Auth[i].wire())
	}
	return b, nil
}

// buildSync checks the Sync declaration and builds its types, relations,
// filters and webhooks into b.
func (a *App) buildSync(b *built, s *Sync) []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if len(s.Types) == 0 {
		add("sync: no types declared")
	}
	if s.DeltaMargin < 0 {
		add("sync: DeltaMargin %v is negative", s.DeltaMargin)
	}
	for i := range s.Types {
		errs = append(errs, b.addType(&s.Types[i])...)
	}
	errs = append(errs, b.checkRelations()...)
	errs = append(errs, b.addFilters(s.Filters)...)
	if w := s.Webhooks; w != nil {
		if w.Install == nil || w.Delete == nil || w.Verify == nil || w.Transform == nil {
			add("sync: Webhooks needs Install, Delete, Verify and Transform")
		}
		b.config.Webhooks = &protocol.WebhooksConfig{Enabled: true}
	}
	return errs
}

// addType builds a declared type and its schema (from Fields or the item
// struct) into b.
func (b *built) addType(t *Type) []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if t.ID == "" || t.Name == "" {
		add("type %q: id and name are required", t.ID)
		return errs
	}
	if _, dup := b.types[t.ID]; dup {
		add("type %q: declared twice", t.ID)
		return errs
	}
	bt := &builtType{decl: t}
	b.types[t.ID] = bt
	b.config.Types = append(b.config.Types, protocol.TypeDescriptor{ID: t.ID, Name: t.Name, Default: t.Default})
	if t.Data == nil {
		add("type %q: Data handler is nil", t.ID)
		return errs
	}
	if err := checkCursorType(t.Data.cursorType()); err != nil {
		add("type %q: %v", t.ID, err)
	}
	it := t.Data.itemType()
	st := it
	if st.Kind() == reflect.Pointer {
		st = st.Elem()
	}
	switch {
	case it == reflect.TypeFor[Item]():
		switch {
		case t.FieldsFunc != nil && len(t.Fields) > 0:
			add("type %q: set Fields or FieldsFunc, not both", t.ID)
		case t.FieldsFunc != nil:
		case len(t.Fields) == 0:
			add("type %q: items are appkit.Item but neither Fields nor FieldsFunc declares the schema", t.ID)
		default:
			bt.fields = t.Fields
		}
	case st.Kind() == reflect.Struct:
		if len(t.Fields) > 0 || t.FieldsFunc != nil {
			add("type %q: the schema comes from the item struct %s; leave Fields and FieldsFunc empty", t.ID, st)
			return errs
		}
		ss, serrs := schemaOf(st, t.Name)
		for _, err := range serrs {
			add("type %q: %s: %v", t.ID, st, err)
		}
		bt.structs, bt.fields = ss, ss.schemaFields()
	default:
		add("type %q: items of Go type %s: use a struct (or a pointer to one) or appkit.Item", t.ID, it)
		return errs
	}
	if bt.fields != nil {
		for j := range bt.fields {
			if r := bt.fields[j].Relation; r != nil && r.TargetName == "" {
				r2 := *r
				r2.TargetName = t.Name
				bt.fields[j].Relation = &r2
			}
		}
		errs = append(errs, checkFields(t.ID, bt.fields)...)
		if bt.structs == nil {
			bt.maps = newMapSchema(bt.fields)
		}
	}
	return errs
}

// checkRelations checks that every relation targets a declared type and
// that each pair of relation names is declared on one side only.
func (b *built) checkRelations() []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	relations := map[string]string{} // sorted pair of "type.relation name" → declaring field
	for _, id := range slices.Sorted(maps.Keys(b.types)) {
		bt := b.types[id]
		for _, f := range bt.fields {
			r := f.Relation
			if r == nil {
				continue
			}
			if _, ok := b.types[r.TargetType]; !ok {
				add("type %q: field %q: relation targets undeclared type %q", id, f.ID, r.TargetType)
				continue
			}
			k1, k2 := id+"."+r.Name, r.TargetType+"."+r.TargetName
			if k2 < k1 {
				k1, k2 = k2, k1
			}
			key := k1 + "|" + k2
			if prev, dup := relations[key]; dup {
				add("type %q: field %q: relation %q ↔ %q is already declared by %s; declare a relation on one side only", id, f.ID, r.Name, r.TargetName, prev)
				continue
			}
			relations[key] = fmt.Sprintf("%s.%s", id, f.ID)
		}
	}
	return errs
}

// addFilters checks the declared filters and their Requires, and builds
// them into b.
func (b *built) addFilters(filters []Filter) []error {
	var errs []error
	add := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	declared := map[Filter]bool{}
	for i, f := range filters {
		if f == nil {
			add("filter %d: nil", i)
			continue
		}
		spec := f.spec()
		errs = append(errs, spec.check()...)
		if _, dup := b.filters[spec.id]; dup {
			add("filter %q: declared twice", spec.id)
			continue
		}
		b.filters[spec.id] = spec
		declared[f] = true
		b.config.Filters = append(b.config.Filters, spec.wire())
	}
	for _, f := range filters {
		if f == nil {
			continue
		}
		for _, req := range f.spec().requires {
			if req == nil || !declared[req] || req == f {
				name := "nil"
				if req != nil {
					name = fmt.Sprintf("%q", req.spec().id)
				}
				add("filter %q: Requires names %s, which is not another filter of Sync.Filters", f.spec().id, name)
			}
		}
	}
	if b.config.Filters == nil {
		b.config.Filters = []protocol.Filter{}
	}
	return errs
}
