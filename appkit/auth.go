package appkit

import (
	"context"
	"fmt"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/oauth"
)

// FieldType is the type of an authentication field or of a filter.
type FieldType string

// The field types of the protocol.
const (
	FieldText          FieldType = "text"
	FieldNumber        FieldType = "number"
	FieldBool          FieldType = "bool"
	FieldPassword      FieldType = "password"      // account forms only
	FieldLink          FieldType = "link"          // view only; Value holds the URL
	FieldHighlightText FieldType = "highlightText" // needs EditorMode
	FieldDatebox       FieldType = "datebox"       // a day
	FieldDateRange     FieldType = "date"          // a date range: the date-range grammar
	FieldOAuth         FieldType = "oauth"
	FieldList          FieldType = "list"
	FieldMultiDropdown FieldType = "multidropdown"
)

// fieldTypeNames lists the field types, for suggestions.
var fieldTypeNames = []string{string(FieldText), string(FieldNumber), string(FieldBool), string(FieldPassword), string(FieldLink),
	string(FieldHighlightText), string(FieldDatebox), string(FieldDateRange), string(FieldOAuth), string(FieldList), string(FieldMultiDropdown)}

func (t FieldType) valid() bool {
	switch t {
	case FieldText, FieldNumber, FieldBool, FieldPassword, FieldLink, FieldHighlightText,
		FieldDatebox, FieldDateRange, FieldOAuth, FieldList, FieldMultiDropdown:
		return true
	}
	return false
}

// Editor modes of a highlightText field.
const (
	EditorJSON = "json"
	EditorSQL  = "sql"
)

// AuthField is one input of an account form.
type AuthField struct {
	// ID is the key of the value in the account object.
	ID string
	// Name is the label on the form.
	Name string
	// Type is the input's type (text, password, link, ...).
	Type FieldType
	// Description is the help text; the protocol requires it.
	Description string
	// Optional fields may be left empty.
	Optional bool
	// Value is the default value; for a link it is the link and required.
	Value string
	// EditorMode is "json" or "sql", required for highlightText.
	EditorMode string
	// Secret fields are masked wherever appkit shows an account (password
	// fields are always secret).
	Secret bool
}

// Validation is the answer of a successful account validation.
type Validation struct {
	// Name is the account's friendly name.
	Name string
	// Fields are merged into the stored account by the service and sent back
	// in every later account: refreshed tokens, account ids.
	Fields map[string]any
}

// ValidateFunc checks an account's values. It returns the friendly name (and
// possibly fields to store), or an error: an invalid account answers 401 with
// the error's message, unless the error is a [TryLater] one.
type ValidateFunc func(ctx context.Context, account Account) (*Validation, error)

// Auth declares one way to set up an account.
type Auth struct {
	// ID is the authentication id: "none", "token", "basic", any custom id;
	// "oauth" and "oauth2" are reserved for OAuth1 and OAuth2.
	ID string
	// Name is the authentication's display name.
	Name string
	// Description, optional, is shown as help.
	Description string
	// Fields make the account form (none for "none").
	Fields []AuthField
	// For narrows the accounts of this authentication to synchronization or
	// to automations; the zero value serves both.
	For Purpose
	// Validate checks an account of this authentication. Required, except for
	// "none" (always valid) and OAuth (validated and refreshed by the flow,
	// where Validate must stay nil: use the flow's Account callback).
	Validate ValidateFunc
	// OAuth1 configures the OAuth 1 flow; set it with [OAuth1Auth].
	OAuth1 *oauth.OAuth1
	// OAuth2 configures the OAuth 2 flow; set it with [OAuth2Auth].
	OAuth2 *oauth.OAuth2
}

// Purpose narrows what the accounts of an authentication are used for.
type Purpose int

const (
	// ForEverything (the zero value): synchronization and automations.
	ForEverything Purpose = iota
	// ForSync: synchronization only.
	ForSync
	// ForActions: automations (external actions) only.
	ForActions
)

// NoAuth declares an app that needs no account.
func NoAuth() Auth {
	return Auth{ID: protocol.AuthNone, Name: "No authentication"}
}

// TokenAuth declares an authentication with id "token" and one password
// field "token" ([TokenAuthToken], with description as its help text).
// validate returns the account's friendly name or an error; handlers read
// the token with TokenAuthToken.Get(req.Account).
func TokenAuth(name, description string, validate func(ctx context.Context, token string) (string, error)) Auth {
	field := TokenAuthToken.Field()
	field.Description = description
	return Auth{
		ID:     "token",
		Name:   name,
		Fields: []AuthField{field},
		Validate: func(ctx context.Context, a Account) (*Validation, error) {
			tok, ok := TokenAuthToken.Get(a)
			if !ok {
				return nil, InvalidAccount("token is missing")
			}
			n, err := validate(ctx, tok)
			if err != nil {
				return nil, err
			}
			return &Validation{Name: n}, nil
		},
	}
}

// BasicAuth declares an authentication with id "basic" and the fields
// "username" and "password" ([BasicAuthUsername], [BasicAuthPassword]).
func BasicAuth(name string, validate func(ctx context.Context, username, password string) (string, error)) Auth {
	return Auth{
		ID:     "basic",
		Name:   name,
		Fields: Form(BasicAuthUsername, BasicAuthPassword),
		Validate: func(ctx context.Context, a Account) (*Validation, error) {
			u, uok := BasicAuthUsername.Get(a)
			p, pok := BasicAuthPassword.Get(a)
			if !uok || !pok {
				return nil, InvalidAccount("username and password are required")
			}
			n, err := validate(ctx, u, p)
			if err != nil {
				return nil, err
			}
			return &Validation{Name: n}, nil
		},
	}
}

// OAuth2Auth declares the OAuth 2 authorization-code flow (id "oauth2"); the
// app serves /oauth2/v1/authorize and /oauth2/v1/access_token, and /validate
// refreshes expiring tokens.
func OAuth2Auth(name string, p *oauth.OAuth2) Auth {
	return Auth{ID: protocol.AuthOAuth2, Name: name, OAuth2: p, Fields: []AuthField{oauthField(name)}}
}

// OAuth1Auth declares the OAuth 1 flow (id "oauth"); the app serves
// /oauth1/v1/authorize and /oauth1/v1/access_token.
func OAuth1Auth(name string, p *oauth.OAuth1) Auth {
	return Auth{ID: protocol.AuthOAuth1, Name: name, OAuth1: p, Fields: []AuthField{oauthField(name)}}
}

func oauthField(name string) AuthField {
	return AuthField{ID: "oauth", Name: "Connect", Type: FieldOAuth, Description: "Sign in with " + name}
}

func (a *Auth) check() error {
	if a.ID == "" {
		return fmt.Errorf("authentication %q: id is empty", a.Name)
	}
	if a.Name == "" {
		return fmt.Errorf("authentication %q: name is empty", a.ID)
	}
	if (a.ID == protocol.AuthOAuth1 || a.ID == protocol.AuthOAuth2) && a.Validate != nil {
		return fmt.Errorf("authentication %q: OAuth accounts are validated by the flow; use the flow's Account callback instead of Validate", a.ID)
	}
	switch a.ID {
	case protocol.AuthNone:
		if len(a.Fields) > 0 {
			return fmt.Errorf("authentication %q: has fields, but %q takes none", a.ID, protocol.AuthNone)
		}
	case protocol.AuthOAuth1:
		if a.OAuth1 == nil {
			return fmt.Errorf("authentication %q: the id is reserved for OAuth 1; declare it with OAuth1Auth", a.ID)
		}
		if err := a.OAuth1.Check(); err != nil {
			return fmt.Errorf("authentication %q: %w", a.ID, err)
		}
	case protocol.AuthOAuth2:
		if a.OAuth2 == nil {
			return fmt.Errorf("authentication %q: the id is reserved for OAuth 2; declare it with OAuth2Auth", a.ID)
		}
		if err := a.OAuth2.Check(); err != nil {
			return fmt.Errorf("authentication %q: %w", a.ID, err)
		}
	default:
		if a.OAuth1 != nil || a.OAuth2 != nil {
			return fmt.Errorf("authentication %q: OAuth flows need the id %q (v1) or %q (v2)", a.ID, protocol.AuthOAuth1, protocol.AuthOAuth2)
		}
		if a.Validate == nil {
			return fmt.Errorf("authentication %q: Validate is nil", a.ID)
		}
	}
	seen := map[string]bool{}
	for _, f := range a.Fields {
		if f.ID == "" || f.Name == "" {
			return fmt.Errorf("authentication %q: a field has an empty id or name", a.ID)
		}
		if f.Description == "" {
			return fmt.Errorf("authentication %q: field %q has no description (the protocol requires one: it is the form's help text)", a.ID, f.ID)
		}
		if seen[f.ID] {
			return fmt.Errorf("authentication %q: field %q declared twice", a.ID, f.ID)
		}
		seen[f.ID] = true
		if !f.Type.valid() {
			return fmt.Errorf("authentication %q: field %q: unknown type %q%s", a.ID, f.ID, f.Type, didYouMean(string(f.Type), fieldTypeNames))
		}
		switch f.Type {
		case FieldLink:
			if f.Value == "" {
				return fmt.Errorf("authentication %q: link field %q has no value (the link)", a.ID, f.ID)
			}
		case FieldHighlightText:
			if f.EditorMode != EditorJSON && f.EditorMode != EditorSQL {
				return fmt.Errorf("authentication %q: highlightText field %q needs editorMode json or sql, got %q", a.ID, f.ID, f.EditorMode)
			}
		case FieldOAuth:
			if a.OAuth1 == nil && a.OAuth2 == nil {
				return fmt.Errorf("authentication %q: field %q has type oauth but the authentication has no OAuth flow", a.ID, f.ID)
			}
		}
	}
	return nil
}

func (a *Auth) wire() protocol.Authentication {
	out := protocol.Authentication{ID: a.ID, Name: a.Name, Description: a.Description}
	switch a.For {
	case ForSync:
		out.ResponsibleFor = &protocol.ResponsibleFor{DataSynchronization: true}
	case ForActions:
		out.ResponsibleFor = &protocol.ResponsibleFor{Automations: true}
	}
	for _, f := range a.Fields {
		out.Fields = append(out.Fields, protocol.Field{
			ID: f.ID, Name: f.Name, Type: string(f.Type), Description: f.Description,
			Optional: f.Optional, Value: f.Value, EditorMode: f.EditorMode,
		})
	}
	return out
}
