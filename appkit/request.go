package appkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Account is the account object that the service sends: the values of the
// authentication fields by field id, plus system keys that apps ignore.
type Account map[string]any

// String returns a value as a string ("" when absent); numbers and booleans
// are formatted. Handlers read declared fields with their typed handles
// instead ([AccountFieldOf.Get], [TokenAuthToken]); String is for keys the
// app does not declare.
func (a Account) String(key string) string { return textOf(a[key]) }

// textOf returns a decoded JSON value as text: strings as they are, numbers
// and booleans formatted, anything else "".
func textOf(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		return v.String()
	}
	return ""
}

// Auth returns the id of the authentication the user picked (the system key
// "auth" that the service stores with the account), or "".
func (a Account) Auth() string { return a.String("auth") }

// Request is what every synchronization and action handler gets: the
// account, the selected types and the decoded filter values.
type Request struct {
	// Account holds the account's values.
	Account Account
	// Types are the types the user selected.
	Types []string
	// Filter holds the filter values, decoded against the declared filters.
	Filter Filters

	app *App
}

// HTTPClient returns an *http.Client authenticated for the request's account
// by the app's OAuth flow (OAuth 2 first, then OAuth 1). Without OAuth it
// returns an error.
func (r *Request) HTTPClient(ctx context.Context) (*http.Client, error) {
	if r.app != nil {
		for i := range r.app.Auth {
			a := &r.app.Auth[i]
			if a.OAuth2 != nil && (r.Account.Auth() == "" || r.Account.Auth() == a.ID) {
				return a.OAuth2.Client(ctx, r.Account)
			}
		}
		for i := range r.app.Auth {
			a := &r.app.Auth[i]
			if a.OAuth1 != nil && (r.Account.Auth() == "" || r.Account.Auth() == a.ID) {
				return a.OAuth1.Client(ctx, r.Account)
			}
		}
	}
	return nil, errors.New("appkit: the app declares no OAuth authentication")
}

// SchemaRequest is the request of a computed schema.
type SchemaRequest struct {
	Request
}

// DataRequest is the request of one page of one type.
type DataRequest struct {
	Request
	// RequestedType is the type to load now.
	RequestedType string
	// OperationID identifies the synchronization run; all types of one run
	// share it.
	OperationID string
	// LastSynchronizedAt is when the last successful run started; zero for
	// a first run. An app answering delta looks for changes since a safety
	// margin before it, for clock skew and runs that overlapped a change:
	// [DataRequest.Since] applies the margin that Sync.DeltaMargin declares.
	LastSynchronizedAt time.Time
	// Version is the service's protocol version, when sent.
	Version string
	// Schema is the current schema of the selected types, when sent.
	Schema json.RawMessage

	margin time.Duration // Sync.DeltaMargin
}

// Since returns the instant from which a delta page looks for changes:
// LastSynchronizedAt less the declared safety margin (Sync.DeltaMargin),
// and true; on a first run (no LastSynchronizedAt) it returns the zero time
// and false, and the handler answers a full page. A handler whose filters
// narrow the items usually answers full when a filter is set too (see
// [Filters.Any]): an item that left the filter must be removed, and only a
// full run removes what it did not deliver.
func (r *DataRequest) Since() (time.Time, bool) {
	if r.LastSynchronizedAt.IsZero() {
		return time.Time{}, false
	}
	return r.LastSynchronizedAt.Add(-r.margin), true
}

// DatalistRequest asks for the options of a datalist filter.
type DatalistRequest struct {
	Request
	// Field is the id of the filter whose options are requested.
	Field string
	// DependsOn holds the values of the filters named in the filter's
	// DatalistRequires, decoded like filter values.
	DependsOn Filters
}

// Option is one option of a datalist.
type Option struct {
	// Title is shown to the user.
	Title string
	// Value is stored in the filter and sent back in later requests.
	Value any
}

// ActionRequest is the request of an external action.
type ActionRequest struct {
	Request
	// Action is the action's id.
	Action string
	// Args holds the arguments by id.
	Args Args
}

// Args are the arguments of an action call.
type Args map[string]any

// String returns an argument as a string ("" when absent). Run reads
// declared arguments with their typed handles instead ([ArgOf.Get]).
func (a Args) String(id string) string { return textOf(a[id]) }

// parseSyncTime reads lastSynchronizedAt: RFC 3339, or naive ISO 8601 (UTC).
func parseSyncTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("lastSynchronizedAt: want an ISO 8601 date-time, got %q", s)
}
