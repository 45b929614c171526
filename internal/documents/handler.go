package documents

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/appkitgo/appkit/internal/httpjson"
	"github.com/google/uuid"
)

// DefaultMaxBody is the size limit of a PUT body when Handler.MaxBody is 0.
const DefaultMaxBody = 4 << 20

// Handler serves GET and PUT /api/documents/<secret>?format=md|html|json.
// Authentication is the caller's business (the host puts token auth in
// front).
//
//   - GET answers 200 {"secret", "content"} with the content in the requested
//     format; a document that exists but was never written has empty content
//     (for json: a doc node without children).
//   - PUT takes {"content": "..."} in the requested format and stores it as
//     markdown; with format=json, content is the tree as JSON text or the tree
//     object itself. It answers like GET, the content re-read in that format.
//   - The secret is a UUID in its 36-character form, in either case: it is
//     answered, stored and looked up in lower case, so every spelling of a
//     secret names the same document.
//   - An unknown or malformed secret answers 404, a bad format, body or tree
//     or content holding a NUL character 400, a body over the limit 413, a
//     document too complex to convert (see [MaxContainersPerLine]) or whose
//     conversion outlasts ConvertTimeout 422, another method 405; every error
//     body is {"message": "..."}.
type Handler struct {
	// Store holds the contents. Required.
	Store *Store
	// Exists reports whether a document with this secret exists (the entity
	// store's DocumentSecretExists). Nil: every well-formed secret exists.
	Exists func(ctx context.Context, secret string) (bool, error)
	// MaxBody limits the PUT body in bytes; 0 means DefaultMaxBody.
	MaxBody int64
	// OnError, when set, is told about internal errors (answered as 500
	// without detail).
	OnError func(r *http.Request, err error)
	// ConvertTimeout bounds one conversion, waiting for a slot included; 0
	// means DefaultConvertTimeout.
	ConvertTimeout time.Duration
	// MaxConversions bounds the conversions running at once; 0 means
	// DefaultMaxConversions.
	MaxConversions int
	// MaxClientConversions bounds the conversions one client runs at once;
	// 0 means MaxConversions-1 (at least 1), so that one client never holds
	// every slot.
	MaxClientConversions int
	// ClientKey names the client of a request for MaxClientConversions; nil
	// means [DefaultClientKey].
	ClientKey func(r *http.Request) string

	once    sync.Once
	sem     chan struct{}
	mu      sync.Mutex
	clients map[string]*clientSlots
}

// clientSlots is one client's share of the conversion slots.
type clientSlots struct {
	sem   chan struct{}
	users int // requests holding or waiting for this entry
}

// Conversion limits. The markdown parser and the HTML converter have inputs
// that take time quadratic in their size; a hostile document must not hold
// the CPU. Markdown over the input limits ([MaxContainersPerLine],
// [MaxBracketWork]) is refused before it is parsed. Conversions run at most
// MaxConversions at once, at most MaxClientConversions of them for one
// client (the API token, see [DefaultClientKey]). One that outlasts
// ConvertTimeout is answered 422 "too complex" and stopped: the parsers check
// for cancellation at every line, every container opened on a line, every
// inline delimiter and every 4 KB of HTML read, and give the slot back when they
// stop. Markdown written with PUT is parsed once under the same limits
// before it is stored, so stored documents are known to convert.
const (
	DefaultConvertTimeout = 5 * time.Second
	DefaultMaxConversions = 2
)

// DefaultClientKey names the client of a request: its Authorization header
// (the API token), else its Cookie header (the session), else the remote
// address without the port. Only a digest is kept.
func DefaultClientKey(r *http.Request) string {
	v := r.Header.Get("Authorization")
	if v == "" {
		v = r.Header.Get("Cookie")
	}
	if v == "" {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			host = r.RemoteAddr
		}
		v = "addr " + host
	}
	sum := sha256.Sum256([]byte(v))
	return hex.EncodeToString(sum[:16])
}

func (h *Handler) init() {
	h.once.Do(func() {
		n := h.MaxConversions
		if n <= 0 {
			n = DefaultMaxConversions
		}
		h.sem = make(chan struct{}, n)
		h.clients = map[string]*clientSlots{}
	})
}

// client returns the client's slots, counting the caller as a user; release
// it with done.
func (h *Handler) client(key string) *clientSlots {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.clients[key]
	if c == nil {
		n := h.MaxClientConversions
		if n <= 0 {
			n = max(cap(h.sem)-1, 1)
		}
		c = &clientSlots{sem: make(chan struct{}, n)}
		h.clients[key] = c
	}
	c.users++
	return c
}

func (h *Handler) done(key string, c *clientSlots) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c.users--
	if c.users == 0 {
		delete(h.clients, key)
	}
}

// convert runs fn under the concurrency and time limits: it waits for one of
// the client's slots, then for a global one, and gives fn a context that
// ends at the timeout or with the request. When that context ends first it
// answers ErrTooComplex (or the request's error) once fn has stopped.
func (h *Handler) convert(r *http.Request, fn func(ctx context.Context) (string, error)) (string, error) {
	h.init()
	timeout := h.ConvertTimeout
	if timeout <= 0 {
		timeout = DefaultConvertTimeout
	}
	ctx, cancel := context.WithTimeoutCause(r.Context(), timeout, errTimedOut)
	defer cancel()
	keyOf := h.ClientKey
	if keyOf == nil {
		keyOf = DefaultClientKey
	}
	key := keyOf(r)
	c := h.client(key)
	defer h.done(key, c)
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return "", h.stopped(r, ctx)
	}
	defer func() { <-c.sem }()
	select {
	case h.sem <- struct{}{}:
	case <-ctx.Done():
		return "", h.stopped(r, ctx)
	}
	defer func() { <-h.sem }()
	type result struct {
		s   string
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("documents: conversion panicked: %v", p)}
			}
		}()
		s, err := fn(ctx)
		done <- result{s, err}
	}()
	// The parsers stop soon after ctx ends: wait for them, so that the
	// slots are given back only when the work has stopped.
	res := <-done
	if ctx.Err() != nil {
		return "", h.stopped(r, ctx)
	}
	return res.s, res.err
}

// stopped is the error of a conversion whose context ended.
func (h *Handler) stopped(r *http.Request, ctx context.Context) error {
	if err := r.Context().Err(); err != nil {
		return err
	}
	return errTimedOut
}

// errTimedOut: a conversion (or its wait for a slot) outlasted the timeout.
var errTimedOut = fmt.Errorf("%w in time", ErrTooComplex)

// Document is the body of GET and PUT answers.
type Document struct {
	Secret  string `json:"secret"`
	Content string `json:"content"`
}

type putBody struct {
	Content json.RawMessage `json:"content"`
}

// ServeHTTP implements http.Handler. The secret is the path value "secret"
// when the handler is mounted on a pattern, else the last path element.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	secret := r.PathValue("secret")
	if secret == "" {
		secret = r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:]
	}
	if r.Method != http.MethodGet && r.Method != http.MethodPut && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, PUT")
		httpjson.Message(w, http.StatusMethodNotAllowed, "method "+r.Method+" is not allowed on a document (use GET or PUT)")
		return
	}
	format, err := ParseFormat(r.URL.Query().Get("format"))
	if err != nil {
		httpjson.Message(w, http.StatusBadRequest, "unknown format "+fmt.Sprintf("%q", r.URL.Query().Get("format"))+": use md, html or json")
		return
	}
	secret, ok := normalSecret(secret)
	if !ok {
		httpjson.Message(w, http.StatusNotFound, "document not found")
		return
	}
	if h.Exists != nil {
		ok, err := h.Exists(r.Context(), secret)
		if err != nil {
			h.internal(w, r, fmt.Errorf("documents: look up secret: %w", err))
			return
		}
		if !ok {
			httpjson.Message(w, http.StatusNotFound, "document not found")
			return
		}
	}
	if r.Method == http.MethodPut {
		if !h.put(w, r, secret, format) {
			return
		}
	}
	stored, _, err := h.Store.Get(r.Context(), secret)
	if err != nil {
		h.internal(w, r, err)
		return
	}
	content := stored
	if format != FormatMarkdown {
		content, err = h.convert(r, func(ctx context.Context) (string, error) { return encode(ctx, stored, format) })
		if err != nil {
			if !h.limitError(w, r, err) {
				h.internal(w, r, err)
			}
			return
		}
	}
	httpjson.Write(w, http.StatusOK, Document{Secret: secret, Content: content})
}

// put decodes and stores the body; it answers the error itself and reports
// whether to go on.
func (h *Handler) put(w http.ResponseWriter, r *http.Request, secret string, format Format) bool {
	limit := h.MaxBody
	if limit <= 0 {
		limit = DefaultMaxBody
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpjson.Message(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", limit))
			return false
		}
		httpjson.Message(w, http.StatusBadRequest, "cannot read the body")
		return false
	}
	var body putBody
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&body); err != nil || dec.More() {
		httpjson.Message(w, http.StatusBadRequest, `the body must be a JSON object {"content": "..."}`)
		return false
	}
	if len(body.Content) == 0 || string(body.Content) == "null" {
		httpjson.Message(w, http.StatusBadRequest, `the body has no "content"`)
		return false
	}
	var content string
	if body.Content[0] == '"' {
		if err := json.Unmarshal(body.Content, &content); err != nil {
			httpjson.Message(w, http.StatusBadRequest, `"content" is not a valid string`)
			return false
		}
	} else if format == FormatJSON && body.Content[0] == '{' {
		content = string(body.Content)
	} else {
		httpjson.Message(w, http.StatusBadRequest, `"content" must be a string (or, with format=json, the document tree)`)
		return false
	}
	markdown, err := h.convert(r, func(ctx context.Context) (string, error) {
		return decode(ctx, content, format) // parses the result once: it converts in time
	})
	if err != nil {
		if h.limitError(w, r, err) {
			return false
		}
		if errors.Is(err, ErrTree) || errors.Is(err, ErrNUL) {
			httpjson.Message(w, http.StatusBadRequest, err.Error())
			return false
		}
		httpjson.Message(w, http.StatusBadRequest, "cannot convert the content from "+string(format))
		return false
	}
	if err := h.Store.Put(r.Context(), secret, markdown); err != nil {
		h.internal(w, r, err)
		return false
	}
	return true
}

// limitError answers the errors of convert's limits; it reports whether err
// was one of them.
func (h *Handler) limitError(w http.ResponseWriter, r *http.Request, err error) bool {
	switch {
	case errors.Is(err, ErrTooComplex):
		httpjson.Message(w, http.StatusUnprocessableEntity, strings.TrimPrefix(err.Error(), "documents: "))
	case r.Context().Err() != nil:
		httpjson.Message(w, http.StatusServiceUnavailable, "the request was cancelled or timed out")
	default:
		return false
	}
	return true
}

func (h *Handler) internal(w http.ResponseWriter, r *http.Request, err error) {
	if h.OnError != nil {
		h.OnError(r, err)
	}
	httpjson.Message(w, http.StatusInternalServerError, "internal error")
}

// normalSecret returns a secret in its stored form, a lower-case UUID of 36
// characters; ok is false when s is no UUID in the 36-character form.
func normalSecret(s string) (string, bool) {
	if len(s) != 36 {
		return "", false
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return "", false
	}
	return u.String(), true
}
