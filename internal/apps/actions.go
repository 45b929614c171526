package apps

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/store"
)

// ActionRequest runs an action of an action app from the host.
type ActionRequest struct {
	// App and Account name the app and the account to run it with.
	App     string `json:"app"`
	Account string `json:"account"`
	// Action is the action's id.
	Action string `json:"action"`
	// Args are the arguments by id (text).
	Args map[string]any `json:"args"`
	// Entity, when set, is the entity that arguments declared
	// textTemplateSupported are rendered against.
	Entity *EntityRef `json:"entity"`
	// By names who runs it, for the history (set by the host from the
	// signed-in user, never read from a request body).
	By string `json:"-"`
}

// EntityRef names an entity of the store.
type EntityRef struct {
	// Type is the store type ("tracker/task").
	Type string `json:"type"`
	// ID is the entity's platform/id.
	ID string `json:"id"`
}

// ActionResult is what the host sent.
type ActionResult struct {
	// Action is the action's id.
	Action string `json:"action"`
	// Args are the arguments as sent (templates rendered).
	Args map[string]string `json:"args"`
	// UpstreamReport holds the calls the app reported making to its
	// upstream API while running the action (with the console's bodies
	// when Config.UpstreamBodies is set).
	UpstreamReport
}

// Limits of an action call.
const (
	maxArgs   = 100
	maxArgLen = 64 << 10
)

// Actions runs the actions of action apps with an account, their text
// arguments rendered against an entity of the store.
type Actions struct {
	*core
	reg *Registry
}

// templateRef is one {{reference}} of a text template.
var templateRef = regexp.MustCompile(`\{\{\s*([^{}]{1,200}?)\s*\}\}`)

// RunAction runs an action: declared arguments only, text values, those
// declared textTemplateSupported rendered against the entity; the account
// is validated first (refreshed tokens are kept).
func (s *Actions) RunAction(ctx context.Context, req ActionRequest) (*ActionResult, error) {
	a, err := s.reg.App(ctx, req.App)
	if err != nil {
		return nil, err
	}
	var act *protocol.Action
	for i := range a.Descriptor.Actions {
		if a.Descriptor.Actions[i].Action == req.Action {
			act = &a.Descriptor.Actions[i]
		}
	}
	if act == nil {
		return nil, fmt.Errorf("%w: the app has no action %q", ErrInvalid, req.Action)
	}
	acc, fields, err := s.reg.account(ctx, req.Account)
	if err != nil {
		return nil, err
	}
	if acc.AppID != a.ID {
		return nil, fmt.Errorf("%w: account %s belongs to another app", ErrInvalid, acc.ID)
	}
	if len(req.Args) > maxArgs {
		return nil, fmt.Errorf("%w: at most %d arguments", ErrInvalid, maxArgs)
	}
	declared := map[string]protocol.ActionArg{}
	for _, arg := range act.Args {
		declared[arg.ID] = arg
	}
	args := map[string]string{}
	for k, v := range req.Args {
		arg, ok := declared[k]
		if !ok {
			return nil, fmt.Errorf("%w: action %s has no argument %q", ErrInvalid, act.Action, k)
		}
		var text string
		switch x := v.(type) {
		case string:
			text = x
		case float64:
			text = strconv.FormatFloat(x, 'f', -1, 64)
		case bool:
			text = strconv.FormatBool(x)
		case nil:
			continue
		default:
			return nil, fmt.Errorf("%w: argument %s: want text", ErrInvalid, k)
		}
		if len(text) > maxArgLen {
			return nil, fmt.Errorf("%w: argument %s is longer than %d bytes", ErrInvalid, k, maxArgLen)
		}
		if arg.TextTemplateSupported && templateRef.MatchString(text) {
			if req.Entity == nil {
				return nil, fmt.Errorf("%w: argument %s refers to fields ({{...}}): give the entity to render it against", ErrInvalid, k)
			}
			if text, err = s.render(ctx, text, *req.Entity); err != nil {
				return nil, fmt.Errorf("argument %s: %w", k, err)
			}
		}
		args[k] = text
	}
	started := s.now()
	m := newMasker(fields, a.Descriptor)
	rec, hc := newRecorder(s.cfg.HTTPClient, m, s.cfg.UpstreamBodies)
	err = s.execute(ctx, hc, a, acc, act, args, fields)
	if err != nil {
		var ae *AppError
		if errors.As(err, &ae) {
			err = &AppError{Path: ae.Path, Status: ae.Status, Message: m.mask(ae.Message), TryLater: ae.TryLater}
		} else {
			err = maskedError{msg: m.mask(err.Error()), err: err}
		}
	}
	ex := actionExchange(rec)
	s.record(ctx, req, a, acc, act, args, m, ex, started, err)
	if err != nil {
		return nil, err
	}
	res := &ActionResult{Action: act.Action, Args: args}
	if ex != nil {
		res.UpstreamReport = ex.UpstreamReport
	}
	return res, nil
}

// maskedError is err with its message masked: errors.Is and As still see
// what it wraps (an account the app refused stays ErrInvalid).
type maskedError struct {
	msg string
	err error
}

func (e maskedError) Error() string { return e.msg }
func (e maskedError) Unwrap() error { return e.err }

// execute validates the account (keeping refreshed tokens) and runs the
// action at the app with hc.
func (s *Actions) execute(ctx context.Context, hc *http.Client, a *App, acc *Account, act *protocol.Action, args map[string]string, fields map[string]any) error {
	name, err := s.reg.validate(ctx, a, acc.Auth, fields)
	if err != nil {
		return err
	}
	if err := s.reg.saveAccount(ctx, acc.ID, name, fields); err != nil {
		return err
	}
	return s.call(ctx, hc, a.URL, http.MethodPost, protocol.PathActionExecute, map[string]any{
		"action": map[string]any{"action": act.Action, "args": args}, "account": fields}, nil)
}

// render replaces each {{reference}} of text with the entity's value: a
// reference names a field by its label ("Name"), its store name
// ("tracker.task/name") or the app's field id ("name"), case-insensitively
// after an exact match; relations show the target's title (an option's
// name for a single select).
func (s *Actions) render(ctx context.Context, text string, ref EntityRef) (string, error) {
	var out string
	err := s.st.Write(ctx, func(tx *store.Tx) error {
		cat := tx.Catalog()
		ty := cat.Type(ref.Type)
		if ty == nil {
			return fmt.Errorf("%w: no type %q", ErrInvalid, ref.Type)
		}
		vals, err := tx.Read(ty, ref.ID)
		if errors.Is(err, store.ErrEntityNotFound) {
			return fmt.Errorf("%w: no %s entity %q", ErrNotFound, ref.Type, ref.ID)
		}
		if err != nil {
			return err
		}
		var bad error
		out = templateRef.ReplaceAllStringFunc(text, func(m string) string {
			name := strings.TrimSpace(templateRef.FindStringSubmatch(m)[1])
			f := findField(ty, name)
			if f == nil {
				if bad == nil {
					bad = fmt.Errorf("%w: the template refers to {{%s}}, and %s has no such field", ErrInvalid, name, ref.Type)
				}
				return m
			}
			return s.show(tx, f, vals[f.Name])
		})
		return bad
	})
	return out, err
}

func findField(ty *store.Type, name string) *store.Field {
	match := func(f *store.Field, fold bool) bool {
		label := f.Label()
		id := f.Name
		if i := strings.LastIndex(id, "/"); i >= 0 {
			id = id[i+1:]
		}
		for _, c := range []string{label, f.Name, id} {
			if c != "" && (c == name || fold && strings.EqualFold(c, name)) {
				return true
			}
		}
		return false
	}
	for _, fold := range []bool{false, true} {
		for _, f := range ty.Fields {
			if match(f, fold) {
				return f
			}
		}
	}
	return nil
}

// show renders one value as text.
func (s *Actions) show(tx *store.Tx, f *store.Field, v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case map[string]any:
		id, _ := x["platform/id"].(string)
		target := tx.Catalog().TypeByID(f.TargetID)
		if target == nil || id == "" {
			return id
		}
		vals, err := tx.Read(target, id)
		if err != nil {
			return id
		}
		if tf := target.TitleField(); tf != nil {
			return fmt.Sprint(vals[tf.Name])
		}
		if n, ok := vals["enum/name"]; ok {
			return fmt.Sprint(n)
		}
		return id
	default:
		return fmt.Sprint(x)
	}
}
