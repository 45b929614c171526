package appkit

import (
	"encoding/json"
	"strconv"
	"strings"
)

// AccountInput is one input of an account form: a typed handle built with
// [TextAccountField], [SecretAccountField], [NumberAccountField] or
// [BoolAccountField], or a plain [AuthField] (for a link, say). List them
// in Auth.Fields with [Form].
type AccountInput interface {
	authField() AuthField
}

func (f AuthField) authField() AuthField { return f }

// Form lists account inputs as the fields of an [Auth]:
//
//	server := appkit.TextAccountField("server", "Server", "The server's address")
//	key := appkit.SecretAccountField("key", "API key", "Settings → API")
//	auth := appkit.Auth{ID: "key", Name: "API key", Fields: appkit.Form(server, key), ...}
//
// and handlers read the values with the same handles: key.Get(req.Account).
func Form(inputs ...AccountInput) []AuthField {
	out := make([]AuthField, len(inputs))
	for i, in := range inputs {
		out[i] = in.authField()
	}
	return out
}

// AccountFieldOf is a typed handle of one account field: declared once,
// listed in an [Auth] with [Form], read with [AccountFieldOf.Get]. T is the
// Go type of its value. Its methods return a changed copy, so a handle
// declared as a package variable is never changed by a use.
type AccountFieldOf[T any] struct{ f AuthField }

func (h AccountFieldOf[T]) authField() AuthField { return h.f }

// ID returns the field's id, the key of its value in the account.
func (h AccountFieldOf[T]) ID() string { return h.f.ID }

// Field returns the field's declaration.
func (h AccountFieldOf[T]) Field() AuthField { return h.f }

// Optional lets the user leave the field empty.
func (h AccountFieldOf[T]) Optional() AccountFieldOf[T] { h.f.Optional = true; return h }

// Default sets the value the form starts with.
func (h AccountFieldOf[T]) Default(v string) AccountFieldOf[T] { h.f.Value = v; return h }

// Secret masks the field's value wherever appkit shows an account (a
// [SecretAccountField] is always secret).
func (h AccountFieldOf[T]) Secret() AccountFieldOf[T] { h.f.Secret = true; return h }

// Get returns the field's value in the account and whether it has one: a
// value that is absent, null, "" or not of the field's type counts as none.
// Forms send every value as text: a number or a yes/no field is read from
// its text too.
func (h AccountFieldOf[T]) Get(a Account) (T, bool) { return valueAs[T](a[h.f.ID]) }

// TextAccountField declares a text input of an account form.
func TextAccountField(id, name, description string) AccountFieldOf[string] {
	return AccountFieldOf[string]{AuthField{ID: id, Name: name, Type: FieldText, Description: description}}
}

// SecretAccountField declares a password input of an account form; its
// value is masked in every log line and error message.
func SecretAccountField(id, name, description string) AccountFieldOf[string] {
	return AccountFieldOf[string]{AuthField{ID: id, Name: name, Type: FieldPassword, Description: description, Secret: true}}
}

// NumberAccountField declares a number input of an account form.
func NumberAccountField(id, name, description string) AccountFieldOf[float64] {
	return AccountFieldOf[float64]{AuthField{ID: id, Name: name, Type: FieldNumber, Description: description}}
}

// BoolAccountField declares a yes/no input of an account form.
func BoolAccountField(id, name, description string) AccountFieldOf[bool] {
	return AccountFieldOf[bool]{AuthField{ID: id, Name: name, Type: FieldBool, Description: description}}
}

// The fields of the authentications that appkit declares: read the token
// of a [TokenAuth] account with TokenAuthToken.Get(req.Account).
var (
	// TokenAuthToken is the "token" field of [TokenAuth].
	TokenAuthToken = SecretAccountField("token", "Token", "The API token")
	// BasicAuthUsername is the "username" field of [BasicAuth].
	BasicAuthUsername = TextAccountField("username", "Username", "User name")
	// BasicAuthPassword is the "password" field of [BasicAuth].
	BasicAuthPassword = SecretAccountField("password", "Password", "Password")
)

// ActionInput is one argument of an action: a typed handle built with
// [TextArg] or [TextAreaArg], or a plain [Arg]. List them in Action.Args
// with [ArgList].
type ActionInput interface {
	actionArg() Arg
}

func (a Arg) actionArg() Arg { return a }

// ArgList lists action inputs as the arguments of an [Action]:
//
//	to := appkit.TextArg("to", "Recipient")
//	text := appkit.TextAreaArg("text", "Text").Templated()
//	action := appkit.Action{ID: "notify", Name: "Notify", Args: appkit.ArgList(to, text), ...}
//
// and Run reads the values with the same handles: to.Get(req.Args).
func ArgList(inputs ...ActionInput) []Arg {
	out := make([]Arg, len(inputs))
	for i, in := range inputs {
		out[i] = in.actionArg()
	}
	return out
}

// ArgOf is a typed handle of one action argument: declared once, listed in
// an [Action] with [ArgList], read with [ArgOf.Get]. Its methods return a
// changed copy.
type ArgOf[T any] struct{ a Arg }

func (h ArgOf[T]) actionArg() Arg { return h.a }

// ID returns the argument's id, the key of its value in the call's args.
func (h ArgOf[T]) ID() string { return h.a.ID }

// Arg returns the argument's declaration.
func (h ArgOf[T]) Arg() Arg { return h.a }

// Optional lets a call leave the argument out.
func (h ArgOf[T]) Optional() ArgOf[T] { h.a.Optional = true; return h }

// Describe sets the help text.
func (h ArgOf[T]) Describe(d string) ArgOf[T] { h.a.Description = d; return h }

// Templated says the argument accepts text templates: the service renders
// {{...}} references against an entity before the call.
func (h ArgOf[T]) Templated() ArgOf[T] { h.a.TextTemplate = true; return h }

// Get returns the argument's value and whether the call has one (absent,
// null and "" count as none).
func (h ArgOf[T]) Get(args Args) (T, bool) { return valueAs[T](args[h.a.ID]) }

// TextArg declares a one-line text argument.
func TextArg(id, name string) ArgOf[string] {
	return ArgOf[string]{Arg{ID: id, Name: name, Type: ArgText}}
}

// TextAreaArg declares a multi-line text argument.
func TextAreaArg(id, name string) ArgOf[string] {
	return ArgOf[string]{Arg{ID: id, Name: name, Type: ArgTextArea}}
}

// valueAs converts a decoded JSON value of an account or the args of a
// call to T (string, float64 or bool), reading text where T is not text.
func valueAs[T any](v any) (T, bool) {
	var zero T
	var out any
	switch any(zero).(type) {
	case string:
		s := textOf(v)
		if s == "" {
			return zero, false
		}
		out = s
	case float64:
		switch x := v.(type) {
		case float64:
			out = x
		case json.Number:
			n, err := x.Float64()
			if err != nil {
				return zero, false
			}
			out = n
		case string:
			n, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				return zero, false
			}
			out = n
		default:
			return zero, false
		}
	case bool:
		switch x := v.(type) {
		case bool:
			out = x
		case string:
			b, err := strconv.ParseBool(strings.TrimSpace(x))
			if err != nil {
				return zero, false
			}
			out = b
		default:
			return zero, false
		}
	default:
		x, ok := v.(T)
		return x, ok
	}
	return out.(T), true
}
