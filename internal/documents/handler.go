package documents

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
//   - An unknown or malformed secret answers 404, a bad format, body or tree
//     400, a body over the limit 413, a document too complex to convert in
//     time 422, another method 405; every error body is {"message": "..."}.
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
	// ConvertTimeout bounds one conversion; 0 means DefaultConvertTimeout.
	ConvertTimeout time.Duration
	// MaxConversions bounds the conversions running at once; 0 means
	// DefaultMaxConversions.
	MaxConversions int

	once sync.Once
	sem  chan struct{}
}

// Conversion limits. The markdown parser and the HTML converter have inputs
// that take time quadratic in their size (thousands of unclosed brackets on
// one line, deeply nested quotes); a hostile document must not hold the CPU.
// Conversions therefore run at most MaxConversions at once, and one that
// outlasts ConvertTimeout is answered 422 "too complex" (it finishes in the
// background, still holding its slot). Markdown written with PUT is parsed
// once under the same limits before it is stored, so stored documents are
// known to convert.
const (
	DefaultConvertTimeout = 5 * time.Second
	DefaultMaxConversions = 2
)

// errTooComplex: a conversion ran out of time.
var errTooComplex = errors.New("documents: the document is too complex to convert")

// convert runs fn under the concurrency and time limits.
func (h *Handler) convert(ctx context.Context, fn func() (string, error)) (string, error) {
	h.once.Do(func() {
		n := h.MaxConversions
		if n <= 0 {
			n = DefaultMaxConversions
		}
		h.sem = make(chan struct{}, n)
	})
	timeout := h.ConvertTimeout
	if timeout <= 0 {
		timeout = DefaultConvertTimeout
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case h.sem <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	case <-timer.C:
		return "", errTooComplex
	}
	type result struct {
		s   string
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() { <-h.sem }()
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("documents: conversion panicked: %v", p)}
			}
		}()
		s, err := fn()
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		return r.s, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	case <-timer.C:
		return "", errTooComplex
	}
}

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
	if !wellFormed(secret) {
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
		content, err = h.convert(r.Context(), func() (string, error) { return Encode(stored, format) })
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
	markdown, err := h.convert(r.Context(), func() (string, error) {
		md, err := Decode(content, format)
		if err != nil {
			return "", err
		}
		MarkdownToTree(md) // prove that it parses in time
		return md, nil
	})
	if err != nil {
		if h.limitError(w, r, err) {
			return false
		}
		if errors.Is(err, ErrTree) {
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
	case errors.Is(err, errTooComplex):
		httpjson.Message(w, http.StatusUnprocessableEntity, "the document is too complex to convert")
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

// wellFormed reports whether s is a UUID in its canonical 36-character form.
func wellFormed(s string) bool {
	if len(s) != 36 {
		return false
	}
	_, err := uuid.Parse(s)
	return err == nil
}
