package apps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// Calls for the web console (internal/console): a datalist read with an
// account, and a test read of one page that writes nothing to the store.

// maxDatalistItems bounds the options a datalist answer may list.
const maxDatalistItems = 10_000

// Datalist reads the options of a list or multidropdown filter from the
// account's app: field is the filter's id, dependsOn the values of the
// filters it names in datalist_requires (wire form).
func (s *Service) Datalist(ctx context.Context, accountID, field string, types []string, dependsOn map[string]any) ([]protocol.DatalistItem, error) {
	acc, fields, err := s.account(ctx, accountID)
	if err != nil {
		return nil, err
	}
	a, err := s.App(ctx, acc.AppID)
	if err != nil {
		return nil, err
	}
	if field == "" || len(field) > 200 {
		return nil, fmt.Errorf("%w: a filter id has 1 to 200 bytes", ErrInvalid)
	}
	if types == nil {
		types = []string{}
	}
	if dependsOn == nil {
		dependsOn = map[string]any{}
	}
	var out protocol.DatalistResponse
	body := map[string]any{"types": types, "account": fields, "field": field, "dependsOn": dependsOn}
	if err := s.call(ctx, nil, a.URL, http.MethodPost, protocol.PathDatalist, body, &out); err != nil {
		return nil, maskAppError(err, fields, a.Descriptor)
	}
	if len(out.Items) > maxDatalistItems {
		out.Items = out.Items[:maxDatalistItems]
	}
	return out.Items, nil
}

// TestRead is the outcome of [Service.TestRead].
type TestRead struct {
	// Exchanges are the calls made (schema, then data), secrets masked.
	Exchanges []Exchange `json:"exchanges"`
}

// TestRead fetches the schema and the first data page of one type with the
// account and a filter in wire form, as a run's first page, and writes
// nothing to the store. A refusal of the app is in the exchanges, not an
// error: the error is for what could not be asked at all.
func (s *Service) TestRead(ctx context.Context, accountID, typ string, filter map[string]json.RawMessage) (*TestRead, error) {
	acc, fields, err := s.account(ctx, accountID)
	if err != nil {
		return nil, err
	}
	a, err := s.App(ctx, acc.AppID)
	if err != nil {
		return nil, err
	}
	if typ == "" || len(typ) > 200 {
		return nil, fmt.Errorf("%w: a type id has 1 to 200 bytes", ErrInvalid)
	}
	if len(mustJSON(filter)) > 64<<10 {
		return nil, fmt.Errorf("%w: the filter is larger than 64 KiB", ErrInvalid)
	}
	if filter == nil {
		filter = map[string]json.RawMessage{}
	}
	m := newMasker(fields, a.Descriptor)
	rec, hc := newRecorder(s.cfg.HTTPClient, m)
	var schema protocol.Schema
	err = s.call(ctx, hc, a.URL, http.MethodPost, protocol.PathSchema,
		map[string]any{"types": []string{typ}, "filter": filter, "account": fields}, &schema)
	if err == nil {
		err = s.call(ctx, hc, a.URL, http.MethodPost, protocol.PathData, map[string]any{
			"requestedType": typ, "types": []string{typ}, "filter": filter, "account": fields,
			"pagination": nil, "lastSynchronizedAt": nil, "schema": schema,
		}, nil)
	}
	ex, _ := rec.exchanges()
	var ae *AppError
	if err != nil && !errors.As(err, &ae) {
		return nil, err
	}
	return &TestRead{Exchanges: ex}, nil
}

// maskAppError masks the account's secrets in an app's error message.
func maskAppError(err error, fields map[string]any, desc *protocol.Descriptor) error {
	var ae *AppError
	if errors.As(err, &ae) {
		ae.Message = newMasker(fields, desc).mask(ae.Message)
	}
	return err
}
