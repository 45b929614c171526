package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
)

// Limits of the command API (the package documentation says how they apply).
const (
	// MaxBodyBytes is the largest request body accepted (413 beyond).
	MaxBodyBytes = 32 << 20
	// MaxCommands is the most commands one request holds, counting every
	// command at every depth: top-level commands, the commands inside
	// platform.command/batch and platform.schema/batch, and the batches
	// themselves.
	MaxCommands = 10000
	// MaxAnswerBytes is the largest answer of one request, measured as its
	// JSON encoding (the host's bound for every API, query.MaxAnswerBytes).
	MaxAnswerBytes = query.MaxAnswerBytes
	// MaxBatchDepth is how deep platform.command/batch nests: a batch
	// inside MaxBatchDepth enclosing batches is refused.
	MaxBatchDepth = 4
)

// Error names of the request layer (the store's names are in package store).
const (
	NameMalformed      = "request.error/malformed"
	NameUnknownCommand = "request.error/unknown-command"
	NameInvalidArgs    = "request.error/invalid-args"
	NameTooLarge       = query.NameAnswerTooLarge // also the answer budget's
)

// Sentinel errors of the request layer's names: errors.Is matches every
// *store.Error of that name (see store.Error.Is).
var (
	ErrMalformed      = &store.Error{Name: NameMalformed}
	ErrUnknownCommand = &store.Error{Name: NameUnknownCommand}
	ErrInvalidArgs    = &store.Error{Name: NameInvalidArgs}
	ErrTooLarge       = query.ErrAnswerTooLarge
)

// API is the command API over a store.
type API struct {
	st *store.Store

	// schema is platform.schema/query's answer, encoded, for one catalog
	// snapshot (rebuilt when the catalog changes).
	schema atomic.Pointer[schemaCache]

	// InternalError, when set, is called with every failure that answers
	// platform.error/internal (database errors, recovered panics), so the
	// host can log what the client is not told. The error text holds SQL
	// with generated identifiers, never bound values.
	InternalError func(ctx context.Context, command string, err error)
}

// New returns the command API over the store.
func New(st *store.Store) *API { return &API{st: st} }

// Result is one element of the response array.
type Result struct {
	Success bool `json:"success"`
	Result  any  `json:"result"`
}

// ErrorBody is the result of a failed command.
type ErrorBody struct {
	Name    string         `json:"name"`
	Message string         `json:"message"`
	Data    map[string]any `json:"data"`
}

// ServeHTTP serves POST /api/commands (authentication and rate limits are the
// host's middleware, in front). It limits the body size, decodes the JSON
// array of commands, runs them, and answers the JSON array of {success,
// result}. Malformed JSON or a body that is not an array is HTTP 400 with
// {"success": false, "result": {"name": "request.error/malformed", ...}}.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeJSON(w, http.StatusMethodNotAllowed, Result{Result: ErrorBody{Name: NameMalformed, Message: "use POST", Data: map[string]any{}}})
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeJSON(w, http.StatusRequestEntityTooLarge, Result{Result: ErrorBody{Name: NameTooLarge,
				Message: fmt.Sprintf("request body larger than %d bytes", MaxBodyBytes), Data: map[string]any{}}})
			return
		}
		writeJSON(w, http.StatusBadRequest, Result{Result: ErrorBody{Name: NameMalformed, Message: "cannot read request body", Data: map[string]any{}}})
		return
	}
	res, err := a.Execute(r.Context(), body)
	if err != nil {
		e := toErrorBody(err)
		status := http.StatusBadRequest
		if e.Name == store.NameInternal {
			status = http.StatusInternalServerError
		}
		writeJSON(w, status, Result{Result: e})
		return
	}
	writeJSON(w, http.StatusOK, res)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var (
		b   []byte
		err error
	)
	switch x := v.(type) {
	case []Result:
		b, err = EncodeResults(x)
	case Result:
		b, err = appendResult(nil, x)
	default:
		b, err = json.Marshal(v)
	}
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"success":false,"result":{"name":"platform.error/internal","message":"cannot encode the response","data":{}}}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// Execute runs an already-read request body: a JSON array of commands. Each
// top-level command runs in its own transaction. The error is non-nil only
// when the body itself is unusable (an *store.Error named
// request.error/malformed, or request.error/too-large when it holds more
// than MaxCommands commands counted at every depth; then nothing runs).
func (a *API) Execute(ctx context.Context, body []byte) ([]Result, error) {
	return a.execute(ctx, body, newAnswer(MaxAnswerBytes))
}

// decoded is one top-level command, or why it could not be decoded.
type decoded struct {
	cmd command
	err error
}

func (a *API) execute(ctx context.Context, body []byte, b *query.Budget) ([]Result, error) {
	raw, err := splitCommands(body)
	if err != nil {
		return nil, err
	}
	cmds := make([]decoded, len(raw))
	total := 0
	for i, r := range raw {
		cmds[i].cmd, cmds[i].err = decodeCommand(r)
		if cmds[i].err != nil {
			total++
		} else {
			total += countCommands(cmds[i].cmd, 0)
		}
		if total > MaxCommands {
			return nil, tooManyCommands(total)
		}
	}
	out := make([]Result, len(raw))
	for i, d := range cmds {
		if i > 0 {
			b.Charge(1) // the comma
		}
		out[i] = a.run(ctx, d, b)
	}
	return out, nil
}

// splitCommands splits the body, a JSON array, into its elements, reading
// no further than MaxCommands + 1 of them.
func splitCommands(body []byte) ([]json.RawMessage, error) {
	malformed := func(err error) error {
		if err == nil {
			return store.Errorf(NameMalformed, nil, "the body must be a JSON array of commands")
		}
		return store.Errorf(NameMalformed, nil, "the body must be a JSON array of commands: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	tok, err := dec.Token()
	if err != nil {
		return nil, malformed(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, malformed(nil)
	}
	raw := []json.RawMessage{}
	for dec.More() {
		if len(raw) == MaxCommands {
			return nil, tooManyCommands(MaxCommands + 1)
		}
		var r json.RawMessage
		if err := dec.Decode(&r); err != nil {
			return nil, malformed(err)
		}
		raw = append(raw, r)
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return nil, malformed(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, malformed(fmt.Errorf("data after the array"))
	}
	return raw, nil
}

func tooManyCommands(n int) error {
	return store.Errorf(NameTooLarge, map[string]any{"max": MaxCommands},
		"the request holds more than %d commands (counting those inside batches, and the batches); at most %d", n-1, MaxCommands)
}

// countCommands counts c and the commands inside it, batches included. A
// command batch nested deeper than MaxBatchDepth counts as one: it is refused
// without running what it holds.
func countCommands(c command, depth int) int {
	n := 1
	switch c.Name {
	case CmdSchemaBatch:
		cmds, _ := c.Args["commands"].([]any)
		n += len(cmds)
	case CmdCommandBatch:
		if depth >= MaxBatchDepth {
			return n
		}
		cmds, _ := c.Args["commands"].([]any)
		for _, raw := range cmds {
			m, ok := raw.(map[string]any)
			if !ok {
				n++
				continue
			}
			sc, err := commandFromMap(m)
			if err != nil {
				n++
				continue
			}
			n += countCommands(sc, depth+1)
		}
	}
	return n
}

// run executes one top-level command, spending its result from b.
func (a *API) run(ctx context.Context, d decoded, b *query.Budget) (res Result) {
	cmd := d.cmd
	mark := b.Mark()
	defer func() {
		if p := recover(); p != nil {
			a.internal(ctx, cmd.Name, fmt.Errorf("panic: %v", p))
			res = failure(store.Errorf(store.NameInternal, nil, "internal error"))
		}
		if !res.Success {
			// A failed command's partial results are not in the answer.
			b.Refund(mark)
			b.Charge(errorSize(res.Result.(ErrorBody)))
		}
	}()
	if d.err != nil {
		return a.fail(ctx, cmd.Name, d.err)
	}
	if b.Over() {
		return a.fail(ctx, cmd.Name, store.Errorf(NameTooLarge, map[string]any{"max-bytes": b.Max()},
			"not run: the answer of this request already reached %d bytes", b.Max()))
	}
	if err := b.Spend(resultTrue); err != nil {
		return a.fail(ctx, cmd.Name, err)
	}
	if readOnly(cmd.Name) {
		// View runs the read again should the catalog have moved under it
		// (another process's schema change): it starts from the same budget.
		var v any
		before := b.Mark()
		err := a.st.View(ctx, func(cat *store.Catalog) error {
			b.Reset(before)
			var err error
			v, err = a.read(ctx, cat, a.st.DB(), cmd, b)
			return err
		})
		if err != nil {
			return a.fail(ctx, cmd.Name, err)
		}
		return Result{Success: true, Result: v}
	}
	write := a.st.Write
	if changesSchema(cmd, 0) {
		write = a.st.WriteSchema
	}
	var v any
	err := write(ctx, func(tx *store.Tx) error {
		var err error
		v, err = a.write(tx, cmd, 0, b)
		return err
	})
	if err != nil {
		return a.fail(ctx, cmd.Name, err)
	}
	return Result{Success: true, Result: v}
}

func failure(err error) Result { return Result{Success: false, Result: toErrorBody(err)} }

// fail answers a failed command, reporting internal errors to InternalError.
func (a *API) fail(ctx context.Context, command string, err error) Result {
	r := failure(err)
	if r.Result.(ErrorBody).Name == store.NameInternal {
		a.internal(ctx, command, err)
	}
	return r
}

func (a *API) internal(ctx context.Context, command string, err error) {
	if a.InternalError != nil {
		a.InternalError(ctx, command, err)
	}
}

func toErrorBody(err error) ErrorBody {
	if e, ok := store.AsError(err); ok {
		data := e.Data
		if data == nil {
			data = map[string]any{}
		}
		return ErrorBody{Name: e.Name, Message: e.Message, Data: data}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return ErrorBody{Name: "request.error/cancelled", Message: "the request was cancelled or timed out", Data: map[string]any{}}
	}
	// Internal errors carry no SQL or values to the client.
	return ErrorBody{Name: store.NameInternal, Message: "internal error", Data: map[string]any{}}
}

// changesSchema reports whether a command (or a batch holding it) changes the
// schema, so its transaction locks the catalog exclusively from the start.
func changesSchema(c command, depth int) bool {
	switch c.Name {
	case CmdSchemaBatch, CmdInstallMixins:
		return true
	case CmdCommandBatch:
		if depth >= MaxBatchDepth {
			return false // refused before anything in it runs
		}
		cmds, _ := c.Args["commands"].([]any)
		for _, raw := range cmds {
			if m, ok := raw.(map[string]any); ok {
				if sc, err := commandFromMap(m); err == nil && changesSchema(sc, depth+1) {
					return true
				}
			}
		}
	}
	return false
}
