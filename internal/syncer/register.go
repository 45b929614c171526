package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/appkitgo/appkit/appkit/protocol"
)

// ErrRefused is wrapped by the error of an app whose descriptor the service
// could not use.
var ErrRefused = errors.New("app refused")

// ErrAccountRejected is wrapped by the error of an account that /validate
// refused.
var ErrAccountRejected = errors.New("account rejected")

// descriptorKeys are the keys of GET / that the protocol defines.
var descriptorKeys = map[string]bool{"id": true, "type": true, "name": true, "version": true, "description": true,
	"website": true, "authentication": true, "sources": true, "responsibleFor": true, "actions": true}

// register reads and checks GET /: refusals are errors, what the service
// tolerates comes back as warnings.
func register(ctx context.Context, c *client) (*protocol.Descriptor, []string, error) {
	var raw map[string]json.RawMessage
	if err := c.callWith(ctx, c.quick(), http.MethodGet, protocol.PathDescriptor, nil, &raw); err != nil {
		var ae *AppError
		if errors.As(err, &ae) && ae.Status == 0 {
			return nil, nil, fmt.Errorf("cannot reach the app: GET %v", err)
		}
		return nil, nil, fmt.Errorf("%w: GET %v", ErrRefused, err)
	}
	var d protocol.Descriptor
	b, _ := json.Marshal(raw)
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, nil, fmt.Errorf("%w: GET /: the descriptor does not parse: %v", ErrRefused, err)
	}
	var warns []string
	if strings.TrimSpace(d.Name) == "" {
		return nil, nil, fmt.Errorf("%w: GET /: the descriptor has no name", ErrRefused)
	}
	if len(d.Authentication) == 0 {
		return nil, nil, fmt.Errorf("%w: GET /: the descriptor declares no authentication (an app without one declares {\"id\": \"none\"})", ErrRefused)
	}
	seen := map[string]bool{}
	for i, a := range d.Authentication {
		if a.ID == "" {
			return nil, nil, fmt.Errorf("%w: GET /: authentication %d has no id", ErrRefused, i+1)
		}
		if seen[a.ID] {
			warns = append(warns, fmt.Sprintf("authentication %q is declared twice; the first is used", a.ID))
		}
		seen[a.ID] = true
		if a.Name == "" {
			warns = append(warns, fmt.Sprintf("authentication %q has no name", a.ID))
		}
	}
	for _, k := range []string{"website", "version", "description"} {
		if v, ok := raw[k]; !ok || string(v) == `""` || string(v) == "null" {
			warns = append(warns, "the descriptor has no "+k)
		}
	}
	if !d.ResponsibleFor.DataSynchronization {
		warns = append(warns, "the descriptor does not say responsibleFor.dataSynchronization: true; synchronizing all the same")
	}
	var extra []string
	for k := range raw {
		if !descriptorKeys[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		warns = append(warns, "the descriptor has keys the protocol does not define (ignored): "+strings.Join(extra, ", "))
	}
	return &d, warns, nil
}

// fetchLogo reads GET /logo: the SVG, nil for none (204, 404), a warning on
// anything else.
func fetchLogo(ctx context.Context, c *client) ([]byte, string) {
	status, ct, data, err := c.raw(ctx, http.MethodGet, protocol.PathLogo, nil)
	switch {
	case err != nil:
		var ae *AppError
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			return nil, ""
		}
		return nil, "GET /logo failed (the default logo is used): " + err.Error()
	case status == http.StatusNoContent:
		return nil, ""
	case !strings.HasPrefix(ct, "image/svg+xml"):
		return nil, fmt.Sprintf("GET /logo answered %q, not image/svg+xml (the default logo is used)", ct)
	}
	return data, ""
}

// appSpace is the namespace of the app's types in the store: its id, else
// its name, reduced to lower-case letters, digits and dashes.
func appSpace(d *protocol.Descriptor) string {
	s := slug(d.ID)
	if s == "" {
		s = slug(d.Name)
	}
	if s == "" {
		s = "app"
	}
	return s
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

func slug(s string) string {
	s = strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(s) > 60 {
		s = strings.TrimRight(s[:60], "-")
	}
	return s
}

// chooseAuth picks the authentication: the one named, else the only one,
// else "none" when declared, else the first that is not OAuth.
func chooseAuth(d *protocol.Descriptor, id string) (*protocol.Authentication, error) {
	var ids []string
	for i := range d.Authentication {
		a := &d.Authentication[i]
		ids = append(ids, a.ID)
		if id != "" && a.ID == id {
			return a, nil
		}
	}
	if id != "" {
		return nil, fmt.Errorf("the app has no authentication %q (it has: %s)", id, strings.Join(ids, ", "))
	}
	if len(d.Authentication) == 1 {
		return &d.Authentication[0], nil
	}
	for i := range d.Authentication {
		if d.Authentication[i].ID == protocol.AuthNone {
			return &d.Authentication[i], nil
		}
	}
	for i := range d.Authentication {
		if a := &d.Authentication[i]; a.ID != protocol.AuthOAuth1 && a.ID != protocol.AuthOAuth2 {
			return a, nil
		}
	}
	return &d.Authentication[0], nil
}

// accountFields turns the user's KEY=VALUE strings into account values typed
// after the authentication's fields, and checks that required fields are
// there (in the given or the stored values).
func accountFields(a *protocol.Authentication, given map[string]string, stored map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for k, v := range stored {
		out[k] = v
	}
	byID := map[string]protocol.Field{}
	for _, f := range a.Fields {
		byID[f.ID] = f
	}
	for k, v := range given {
		f, ok := byID[k]
		if !ok {
			out[k] = v // OAuth tokens and keys the app reads without declaring them
			continue
		}
		switch f.Type {
		case "number":
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("account field %s (%s): want a number, got %q", f.ID, f.Name, v)
			}
			out[k] = n
		case "bool":
			b, ok := parseBool(v)
			if !ok {
				return nil, fmt.Errorf("account field %s (%s): want true or false, got %q", f.ID, f.Name, v)
			}
			out[k] = b
		default:
			out[k] = v
		}
	}
	for _, f := range a.Fields {
		if f.Optional || f.Type == "link" || f.Type == "oauth" {
			continue
		}
		if _, ok := out[f.ID]; !ok {
			return nil, fmt.Errorf("account field %s (%s) is required by authentication %q: pass --account %s=VALUE", f.ID, f.Name, a.ID, f.ID)
		}
	}
	out["auth"] = a.ID
	return out, nil
}

// validateAccount calls /validate and merges the fields it returns into the
// account; it returns the account name.
func validateAccount(ctx context.Context, c *client, authID string, account map[string]any) (string, error) {
	var resp map[string]any
	err := c.callRetry(ctx, http.MethodPost, protocol.PathValidate, map[string]any{"id": authID, "fields": account}, &resp)
	var ae *AppError
	if errors.As(err, &ae) && (ae.Status == http.StatusUnauthorized || ae.Status == http.StatusForbidden) {
		return "", fmt.Errorf("%w: %s", ErrAccountRejected, ae.Message)
	}
	if err != nil {
		return "", fmt.Errorf("validate the account: %w", err)
	}
	name, _ := resp["name"].(string)
	for k, v := range resp {
		if k != "name" {
			account[k] = v
		}
	}
	return name, nil
}
