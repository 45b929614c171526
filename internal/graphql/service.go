package graphql

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/appkitgo/appkit/internal/problems"
	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
)

// Limits of one request (see the package documentation).
const (
	// DefaultMaxBody is the largest request body, in bytes.
	DefaultMaxBody = 1 << 20
	// DefaultMaxQueryBytes is the longest query text.
	DefaultMaxQueryBytes = 64 << 10
	// DefaultMaxTokens bounds the tokens of the query text.
	DefaultMaxTokens = 15000
	// DefaultMaxDepth is the deepest nesting of selections (introspection
	// queries of GraphQL tools nest about 13 deep).
	DefaultMaxDepth = 15
	// DefaultMaxComplexity bounds the fields of one operation, counted after
	// fragments are expanded (each occurrence of a field counts once).
	DefaultMaxComplexity = 5000
	// DefaultTimeout bounds the execution of one request.
	DefaultTimeout = 30 * time.Second
	// MaxSelected is the most entities one mutation group acts on.
	MaxSelected = 10000
)

// Config configures a [Service]. Only Store is required.
type Config struct {
	// Store is the host's store.
	Store *store.Store
	// MaxBody, MaxQueryBytes, MaxTokens, MaxDepth and MaxComplexity bound a
	// request (0: the Default... constants).
	MaxBody       int64
	MaxQueryBytes int
	MaxTokens     int
	MaxDepth      int
	MaxComplexity int
	// Timeout bounds the execution of one request (0: DefaultTimeout).
	Timeout time.Duration
	// MaxAnswerBytes bounds the data of one answer, measured as its JSON
	// encoding (0: query.MaxAnswerBytes, the command API's bound).
	MaxAnswerBytes int
	// MaxWriteBytes bounds what one request's mutations write in texts and
	// files, per-entity copies counted (0: MaxWriteBytes).
	MaxWriteBytes int
	// Gate bounds the queries one viewer runs at once (nil: a gate of the
	// service's own with query.DefaultQueriesPerClient slots per viewer). A
	// request whose context was already admitted through a gate (the host's,
	// shared with the command API) keeps that admission.
	Gate *query.Gate
	// MaxSelected bounds the entities a mutation group without limit acts
	// on (0: MaxSelected).
	MaxSelected int
	// OnError receives internal failures (the client gets "internal error").
	OnError func(ctx context.Context, err error)
	// FilesPath is the path under which the host serves stored files
	// (ServeFile); a file's url is FilesPath + its id. It begins and ends
	// with "/" (default DefaultFilesPath).
	FilesPath string
	// AllowPrivateURLs lets addFileFromUrl download from loopback, private
	// and other non-public addresses (refused by default).
	AllowPrivateURLs bool
	// MaxFileBytes and FetchTimeout bound one download of addFileFromUrl
	// (0: DefaultMaxFileBytes, DefaultFetchTimeout).
	MaxFileBytes int64
	FetchTimeout time.Duration
}

// Viewer is the authenticated user a request runs for.
type Viewer struct {
	// ID is the user's id.
	ID string
	// Email is the user's e-mail address (me { email }).
	Email string
}

// Request is the body of a GraphQL request.
type Request struct {
	// Query is the GraphQL document.
	Query string `json:"query"`
	// Variables are the values of the operation's variables.
	Variables map[string]any `json:"variables"`
	// OperationName chooses the operation of a document with several.
	OperationName string `json:"operationName"`
}

// Error is one entry of the errors array of an answer.
type Error struct {
	// Message says what went wrong.
	Message string `json:"message"`
	// Locations point into the query text (1-based line and column).
	Locations []Location `json:"locations,omitempty"`
	// Path is the response path of the field that failed.
	Path []any `json:"path,omitempty"`
	// Extensions carry a stable code.
	Extensions map[string]any `json:"extensions,omitempty"`
}

// Location is a position in the query text.
type Location struct {
	// Line is the 1-based line.
	Line int `json:"line"`
	// Column is the 1-based column.
	Column int `json:"column"`
}

// Response is the answer to a request: errors (when any) and data.
type Response struct {
	// Errors lists what went wrong.
	Errors []*Error
	// Data is the result; nil with HasData false means no "data" key (the
	// request failed before execution).
	Data    *omap
	HasData bool
}

// MarshalJSON writes {"errors": [...], "data": {...}} with the keys of data
// in selection order.
func (r *Response) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	if len(r.Errors) > 0 {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r.Errors); err != nil {
			return nil, err
		}
		b = append(b, `"errors":`...)
		b = append(b, bytes.TrimRight(buf.Bytes(), "\n")...)
	}
	if r.HasData {
		if len(r.Errors) > 0 {
			b = append(b, ',')
		}
		b = append(b, `"data":`...)
		if r.Data == nil {
			b = append(b, "null"...)
		} else {
			b = appendJSON(b, r.Data)
		}
	}
	return append(b, '}'), nil
}

// Service runs GraphQL requests against the store: one schema per space,
// rebuilt when the catalog changes.
type Service struct {
	cfg     Config
	mu      sync.Mutex
	schemas map[string]*spaceSchema
	fetch   *fetcher
}

// ErrConfig reports a Config that [New] cannot start with (wrapped with
// every problem found).
var ErrConfig = errors.New("graphql: invalid configuration")

// DefaultFilesPath is the default Config.FilesPath.
const DefaultFilesPath = "/api/graphql/files/"

// WithDefaults returns a copy of c with every unset setting given its
// default: MaxBody, MaxQueryBytes, MaxTokens, MaxDepth, MaxComplexity,
// Timeout, MaxSelected, MaxWriteBytes, MaxAnswerBytes, MaxFileBytes and
// FetchTimeout when not positive (0 or less: the Default... constants),
// Gate (a gate of the service's own with query.DefaultQueriesPerClient
// slots per viewer) and FilesPath (DefaultFilesPath).
func (c Config) WithDefaults() Config {
	positiveOr(&c.MaxBody, DefaultMaxBody)
	positiveOr(&c.MaxQueryBytes, DefaultMaxQueryBytes)
	positiveOr(&c.MaxTokens, DefaultMaxTokens)
	positiveOr(&c.MaxDepth, DefaultMaxDepth)
	positiveOr(&c.MaxComplexity, DefaultMaxComplexity)
	positiveOr(&c.Timeout, DefaultTimeout)
	positiveOr(&c.MaxSelected, MaxSelected)
	if c.Gate == nil {
		c.Gate = query.NewGate(query.DefaultQueriesPerClient)
	}
	positiveOr(&c.MaxWriteBytes, MaxWriteBytes)
	positiveOr(&c.MaxAnswerBytes, query.MaxAnswerBytes)
	if c.FilesPath == "" {
		c.FilesPath = DefaultFilesPath
	}
	positiveOr(&c.MaxFileBytes, DefaultMaxFileBytes)
	positiveOr(&c.FetchTimeout, DefaultFetchTimeout)
	return c
}

// positiveOr sets the bound *v to d unless it is set (positive).
func positiveOr[T int | int64 | time.Duration](v *T, d T) {
	if *v <= 0 {
		*v = d
	}
}

// validate checks a Config after WithDefaults and reports every problem at
// once, wrapped in ErrConfig.
func (c Config) validate() error {
	var bad problems.List
	if c.Store == nil {
		bad.Add("Store is required")
	}
	problems.Positive(&bad, "MaxBody", c.MaxBody)
	problems.Positive(&bad, "MaxQueryBytes", c.MaxQueryBytes)
	problems.Positive(&bad, "MaxTokens", c.MaxTokens)
	problems.Positive(&bad, "MaxDepth", c.MaxDepth)
	problems.Positive(&bad, "MaxComplexity", c.MaxComplexity)
	problems.Positive(&bad, "Timeout", c.Timeout)
	problems.Positive(&bad, "MaxSelected", c.MaxSelected)
	problems.Positive(&bad, "MaxWriteBytes", c.MaxWriteBytes)
	problems.Positive(&bad, "MaxAnswerBytes", c.MaxAnswerBytes)
	problems.Positive(&bad, "MaxFileBytes", c.MaxFileBytes)
	problems.Positive(&bad, "FetchTimeout", c.FetchTimeout)
	if c.Gate == nil {
		bad.Add("Gate is required")
	}
	if !strings.HasPrefix(c.FilesPath, "/") || !strings.HasSuffix(c.FilesPath, "/") {
		bad.Add("FilesPath %q is not a path that begins and ends with /", c.FilesPath)
	}
	return bad.Err(ErrConfig)
}

// New returns a service on cfg.Store. cfg is completed with
// [Config.WithDefaults] and validated: an error wraps [ErrConfig] and names
// every problem (Store is required).
func New(cfg Config) (*Service, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Service{cfg: cfg, schemas: map[string]*spaceSchema{}, fetch: newFetcher(cfg.AllowPrivateURLs, cfg.MaxFileBytes, cfg.FetchTimeout)}, nil
}

// ErrNoSpace reports a space without databases.
var ErrNoSpace = errors.New("graphql: no such space")

// schemaFor returns the schema of the space at the catalog's version,
// building it when the catalog changed since the last build.
func (s *Service) schemaFor(cat *store.Catalog, space string) (*spaceSchema, error) {
	s.mu.Lock()
	cached := s.schemas[space]
	s.mu.Unlock()
	if cached != nil && cached.cat == cat {
		return cached, nil
	}
	if cached != nil && cached.cat.Version == cat.Version && cached.cat.SchemaID == cat.SchemaID {
		return cached, nil
	}
	sch, ok, err := buildSchema(cat, space)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !ok {
		delete(s.schemas, space)
		return nil, ErrNoSpace
	}
	if cur := s.schemas[space]; cur == nil || cur.cat.Version <= cat.Version {
		s.schemas[space] = sch
	}
	return sch, nil
}

// SDL returns the schema of a space in the GraphQL schema language.
func (s *Service) SDL(ctx context.Context, space string) (string, error) {
	cat, err := s.cfg.Store.Catalog(ctx)
	if err != nil {
		return "", err
	}
	sch, err := s.schemaFor(cat, space)
	if err != nil {
		return "", err
	}
	return sch.sdl, nil
}

// Spaces lists the spaces of the store's current catalog.
func (s *Service) Spaces(ctx context.Context) ([]string, error) {
	cat, err := s.cfg.Store.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	return Spaces(cat), nil
}

// DecodeRequest reads a request body (at most cfg.MaxBody bytes).
func (s *Service) DecodeRequest(body io.Reader) (*Request, error) {
	data, err := io.ReadAll(io.LimitReader(body, s.cfg.MaxBody+1))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, fmt.Errorf("%w: %d bytes", errTooLarge, s.cfg.MaxBody)
		}
		return nil, fmt.Errorf("read the body: %w", err)
	}
	if int64(len(data)) > s.cfg.MaxBody {
		return nil, fmt.Errorf("%w: %d bytes", errTooLarge, s.cfg.MaxBody)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var req Request
	if err := dec.Decode(&req); err != nil {
		return nil, fmt.Errorf("the body is not a JSON object {query, variables, operationName}: %w", err)
	}
	if dec.More() {
		return nil, errors.New("the body holds more than one JSON value")
	}
	return &req, nil
}

// errTooLarge reports a body over the limit.
var errTooLarge = errors.New("the request body is larger than the limit")

// IsTooLarge reports whether err is a body over the size limit.
func IsTooLarge(err error) bool { return errors.Is(err, errTooLarge) }

// Execute runs one request for viewer in space. Failures are in the
// response's errors; err is ErrNoSpace for an unknown space and non-nil only
// for that and for failures to read the catalog.
//
// A request that fails before it changed anything (a query, or a mutation
// refused before it ran) runs once more when the catalog moved under it:
// another process's schema change whose notification had not arrived yet
// (store.View).
func (s *Service) Execute(ctx context.Context, space string, viewer Viewer, req *Request) (*Response, error) {
	if !query.Admitted(ctx) {
		ctx = s.cfg.Gate.Admit(ctx, "user:"+viewer.ID)
	}
	var resp *Response
	err := s.cfg.Store.View(ctx, func(cat *store.Catalog) error {
		r, ran, err := s.execute(ctx, cat, space, viewer, req)
		resp = r
		if err == nil && len(r.Errors) > 0 && !ran {
			return errFailedRequest
		}
		return err
	})
	if errors.Is(err, errFailedRequest) {
		err = nil
	}
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// errFailedRequest tells store.View that a request answered errors.
var errFailedRequest = errors.New("graphql: the request failed")

// execute is Execute with one catalog snapshot; ran reports that a mutation
// ran (so the request is not to be run again).
func (s *Service) execute(ctx context.Context, cat *store.Catalog, space string, viewer Viewer, req *Request) (resp *Response, ran bool, err error) {
	sch, err := s.schemaFor(cat, space)
	if err != nil {
		return nil, false, err
	}
	resp = &Response{}
	if len(req.Query) > s.cfg.MaxQueryBytes {
		resp.Errors = append(resp.Errors, &Error{Message: fmt.Sprintf("the query is longer than %d bytes", s.cfg.MaxQueryBytes), Extensions: code("QUERY_TOO_LARGE")})
		return resp, false, nil
	}
	if req.Query == "" {
		resp.Errors = append(resp.Errors, &Error{Message: "the request has no query", Extensions: code("GRAPHQL_PARSE_FAILED")})
		return resp, false, nil
	}
	doc, perr := parser.ParseQueryWithTokenLimit(&ast.Source{Name: "query", Input: req.Query}, s.cfg.MaxTokens)
	if perr != nil {
		resp.Errors = append(resp.Errors, fromGQLError(perr, "GRAPHQL_PARSE_FAILED")...)
		return resp, false, nil
	}
	if lerr := s.checkDocument(doc); lerr != nil {
		resp.Errors = append(resp.Errors, lerr)
		return resp, false, nil
	}
	if errs := repeatedActions(doc, sch); len(errs) > 0 {
		resp.Errors = errs
		return resp, false, nil
	}
	if errs := validate(sch.schema, doc); len(errs) > 0 {
		resp.Errors = errs
		return resp, false, nil
	}
	op, oerr := pickOperation(doc, req.OperationName)
	if oerr != nil {
		resp.Errors = append(resp.Errors, oerr)
		return resp, false, nil
	}
	vars, verr := validator.VariableValues(sch.schema, op, req.Variables)
	if verr != nil {
		resp.Errors = append(resp.Errors, fromGQLError(verr, "BAD_USER_INPUT")...)
		return resp, false, nil
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	e := &executor{svc: s, sch: sch, doc: doc, vars: vars, viewer: viewer, ctx: ctx, st: s.cfg.Store, cat: cat, answer: query.NewBudget(s.cfg.MaxAnswerBytes, 0)}
	ran = op.Operation == ast.Mutation
	resp.Data = e.operation(op)
	resp.HasData = true
	resp.Errors = append(resp.Errors, e.errs...)
	return resp, ran, nil
}

func code(c string) map[string]any { return map[string]any{"code": c} }

func fromGQLError(err error, c string) []*Error {
	var list gqlerror.List
	var one *gqlerror.Error
	switch {
	case errors.As(err, &list):
	case errors.As(err, &one):
		list = gqlerror.List{one}
	default:
		return []*Error{{Message: err.Error(), Extensions: code(c)}}
	}
	out := make([]*Error, 0, len(list))
	for _, e := range list {
		ge := &Error{Message: e.Message, Extensions: code(c)}
		for _, l := range e.Locations {
			ge.Locations = append(ge.Locations, Location{Line: l.Line, Column: l.Column})
		}
		for _, p := range e.Path {
			switch x := p.(type) {
			case ast.PathName:
				ge.Path = append(ge.Path, string(x))
			case ast.PathIndex:
				ge.Path = append(ge.Path, int(x))
			}
		}
		out = append(out, ge)
	}
	return out
}

func pickOperation(doc *ast.QueryDocument, name string) (*ast.OperationDefinition, *Error) {
	if name == "" {
		if len(doc.Operations) != 1 {
			return nil, &Error{Message: "the document has several operations: choose one with operationName", Extensions: code("BAD_USER_INPUT")}
		}
		return doc.Operations[0], nil
	}
	op := doc.Operations.ForName(name)
	if op == nil {
		return nil, &Error{Message: fmt.Sprintf("the document has no operation named %q", name), Extensions: code("BAD_USER_INPUT")}
	}
	if op.Operation == ast.Subscription {
		return nil, &Error{Message: "subscriptions are not served", Extensions: code("BAD_USER_INPUT")}
	}
	return op, nil
}

// repeatedActions refuses a mutation whose database group names one action
// twice (with the same response key): such actions would run with
// different arguments under one key, so the batch form or aliases are
// needed.
func repeatedActions(doc *ast.QueryDocument, sch *spaceSchema) []*Error {
	var errs []*Error
	for _, op := range doc.Operations {
		if op.Operation != ast.Mutation {
			continue
		}
		for _, sel := range op.SelectionSet {
			f, ok := sel.(*ast.Field)
			if !ok {
				continue
			}
			o := sch.groups[f.Name]
			if o == nil {
				continue
			}
			seen := map[string]bool{}
			for _, a := range f.SelectionSet {
				af, ok := a.(*ast.Field)
				if !ok || af.Name == "__typename" {
					continue
				}
				key := af.Alias
				if key == "" {
					key = af.Name
				}
				if seen[key] {
					msg := fmt.Sprintf("action %s is repeated in %s: an action may appear once per mutation; give each occurrence an alias", af.Name, f.Name)
					for _, act := range o.actions {
						if act.name == af.Name+"Batch" {
							msg = fmt.Sprintf("action %s is repeated in %s: use %s(data: [...]) with one item per set of arguments, or give each occurrence an alias", af.Name, f.Name, act.name)
						}
					}
					errs = append(errs, &Error{Message: msg, Locations: []Location{{Line: af.Position.Line, Column: af.Position.Column}}, Extensions: code("GRAPHQL_VALIDATION_FAILED")})
				}
				seen[key] = true
			}
		}
	}
	return errs
}
