package apps

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/syncer"
)

// Registry keeps the registered apps and their accounts, whose fields it
// seals at rest; it reads an app's descriptor and config and validates
// accounts with the app.
type Registry struct{ *core }

// App is a registered app.
type App struct {
	// ID identifies the app in the host.
	ID string `json:"id"`
	// URL is the app's base address.
	URL string `json:"url"`
	// Name is the app's name, Space the namespace of its types in the
	// store ("tracker": tracker/task).
	Name  string `json:"name"`
	Space string `json:"space"`
	// Descriptor is the app's GET / as last read.
	Descriptor *protocol.Descriptor `json:"descriptor"`
	// Warnings are what the host tolerated in the descriptor at
	// registration (not stored).
	Warnings []string `json:"warnings,omitempty"`
	// CreatedAt is when the app was registered.
	CreatedAt time.Time `json:"createdAt"`
}

// NormalizeURL checks an app's address: http or https with a host, no
// query or fragment; the trailing slash is dropped.
func NormalizeURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil || len(raw) > 2000 {
		return "", fmt.Errorf("%w: the app address must be http(s)://host[:port][/path] without credentials, query or fragment", ErrInvalid)
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// errNoApp is the one answer to an address where no app answered: the
// same whether nothing listens, the address is outside Config.Networks,
// the call timed out or something else answered, so that registration
// cannot be used to scan what the host reaches. The cause is logged.
var errNoApp = fmt.Errorf("%w: no app answered GET / with a JSON descriptor at this address (unreachable, outside the networks the host may call, or not an app)", ErrUnreachable)

// RegisterSpec registers an app.
type RegisterSpec struct {
	// URL is the app's address (see NormalizeURL).
	URL string `json:"url"`
	// Adopt lets the app take over its space (its descriptor's id) when
	// the store holds data there that no sync owns (left by `appkit sync`,
	// `appkit host --demo` or a removed sync or app); without it such a
	// space is refused (ErrConflict). A space another app or sync owns is
	// never taken.
	Adopt bool `json:"adopt,omitempty"`
}

// RegisterApp registers the app at rawURL: Register without adopting a
// space.
func (s *Registry) RegisterApp(ctx context.Context, rawURL string) (*App, error) {
	return s.Register(ctx, RegisterSpec{URL: rawURL})
}

// Register reads the app's descriptor (checked as a run checks it) and
// registers it; an address already registered is read again and its
// descriptor updated. The app's space (from its id) must be free: no other
// app's and no sync's of another app, and, unless spec.Adopt, holding no
// data that no sync owns (see heldInStore); a registration read again that
// changes the space checks the new one the same way. Only an address that
// answered GET / with a JSON object gets a detailed refusal (what is wrong
// with its descriptor); every other failure is errNoApp.
func (s *Registry) Register(ctx context.Context, spec RegisterSpec) (*App, error) {
	u, err := NormalizeURL(spec.URL)
	if err != nil {
		return nil, err
	}
	opts := s.engineOptions(u)
	pr := &probe{base: transportOf(opts.HTTPClient)}
	hc := *opts.HTTPClient
	hc.Transport = pr
	opts.HTTPClient = &hc
	desc, err := syncer.Describe(ctx, opts)
	if err != nil {
		if errors.Is(err, syncer.ErrRefused) && pr.answeredJSON() {
			return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		s.log.Info().Str("url", u).Str("cause", err.Error()).Msg("apps: no app answered at a registered address")
		return nil, errNoApp
	}
	name := desc.Descriptor.Name
	a := &App{URL: u, Name: name, Space: desc.Space, Descriptor: desc.Descriptor, Warnings: desc.Warnings}
	// The space's data in the store is checked first, in a transaction of
	// its own; who owns the space among the service's tables is checked
	// again in the one that writes.
	if err := s.checkAppSpace(ctx, u, desc.Space, spec.Adopt); err != nil {
		return nil, fmt.Errorf("register the app: %w", err)
	}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		id, space, created, err := s.on(tx).appAtURL(ctx, u)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if err := s.appSpaceOwned(ctx, tx, "", desc); err != nil {
				return err
			}
			a.ID, a.CreatedAt = newID(), s.now().UTC()
			return s.on(tx).insertApp(ctx, a)
		case err != nil:
			return err
		}
		if space != desc.Space {
			if err := s.appSpaceOwned(ctx, tx, id, desc); err != nil {
				return err
			}
		}
		a.ID, a.CreatedAt = id, created
		return s.on(tx).updateApp(ctx, a)
	})
	if err != nil {
		return nil, fmt.Errorf("register the app: %w", err)
	}
	return a, nil
}

// checkAppSpace refuses the space of an app registered at u (new, or whose
// space changes) that another app or sync owns, or that holds data no sync
// owns unless adopt.
func (s *Registry) checkAppSpace(ctx context.Context, u, space string, adopt bool) error {
	id, current, err := s.on(s.db).appSpaceAtURL(ctx, u)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if id != "" && current == space {
		return nil // read again, same space
	}
	// Owned by a sync (of this app: the app's data; of another: refused
	// by the write) or another app (refused by the write)?
	owners, err := s.on(s.db).countSpaceOwners(ctx, space, id)
	if err != nil || owners > 0 || adopt {
		return err
	}
	held, err := s.heldInStore(ctx, space)
	if err != nil {
		return err
	}
	if held != "" {
		return unownedSpace(space, held, adoptApp)
	}
	return nil
}

// appSpaceOwned refuses (in tx) the space of the app appID ("" for a new
// one) when another app has it as its own or a sync of another app owns
// it.
func (s *Registry) appSpaceOwned(ctx context.Context, tx *sql.Tx, appID string, desc *syncer.Description) error {
	other, err := s.on(tx).firstOtherAppOfSpace(ctx, desc.Space, appID)
	if err == nil {
		return fmt.Errorf("%w: an app with the id %q is already registered at %s (its types share the space %q)", ErrConflict, desc.Descriptor.ID, other, desc.Space)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	other, err = s.on(tx).otherAppSyncOfSpace(ctx, desc.Space, appID)
	if err == nil {
		return fmt.Errorf("%w: sync %s of another app owns the space %q of this app's types", ErrConflict, other, desc.Space)
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	return nil
}

// Apps lists the registered apps, oldest first.
func (s *Registry) Apps(ctx context.Context) ([]*App, error) {
	return s.on(s.db).apps(ctx)
}

// App returns one app (ErrNotFound when there is none).
func (s *Registry) App(ctx context.Context, id string) (*App, error) {
	a, err := s.on(s.db).app(ctx, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("%w: no app %q", ErrNotFound, id)
	}
	return a, err
}

// ---- accounts

// Account is an account of an app; its field values never leave the
// service.
type Account struct {
	// ID identifies the account.
	ID string `json:"id"`
	// AppID is the app's id; Auth the authentication id.
	AppID string `json:"app"`
	Auth  string `json:"auth"`
	// Name is the name /validate answered.
	Name string `json:"name"`
	// Fields are the keys of the stored fields (their values are secret).
	Fields []string `json:"fields"`
	// CreatedAt and UpdatedAt are when it was set up and last written.
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// TypedFields types KEY=VALUE strings after the authentication's fields
// (number and bool fields; the rest stay text).
func TypedFields(desc *protocol.Descriptor, authID string, given map[string]string) (map[string]any, error) {
	types := map[string]string{}
	if a := findAuth(desc, authID); a != nil {
		for _, f := range a.Fields {
			types[f.ID] = f.Type
		}
	}
	out := make(map[string]any, len(given))
	for k, v := range given {
		switch types[k] {
		case "number":
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("%w: account field %s: want a number", ErrInvalid, k)
			}
			out[k] = n
		case "bool":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("%w: account field %s: want true or false", ErrInvalid, k)
			}
			out[k] = b
		default:
			out[k] = v
		}
	}
	return out, nil
}

func findAuth(desc *protocol.Descriptor, id string) *protocol.Authentication {
	for i := range desc.Authentication {
		if desc.Authentication[i].ID == id {
			return &desc.Authentication[i]
		}
	}
	return nil
}

// pickAuth is the authentication id to use: the given one (which must
// exist), else the only one, else none, else the first.
func pickAuth(desc *protocol.Descriptor, id string) (string, error) {
	if id != "" {
		if findAuth(desc, id) == nil {
			var ids []string
			for _, a := range desc.Authentication {
				ids = append(ids, a.ID)
			}
			return "", fmt.Errorf("%w: the app has no authentication %q (it has: %s)", ErrInvalid, id, strings.Join(ids, ", "))
		}
		return id, nil
	}
	if len(desc.Authentication) == 0 {
		return "", fmt.Errorf("%w: the app declares no authentication", ErrInvalid)
	}
	if len(desc.Authentication) == 1 {
		return desc.Authentication[0].ID, nil
	}
	if findAuth(desc, protocol.AuthNone) != nil {
		return protocol.AuthNone, nil
	}
	return desc.Authentication[0].ID, nil
}

// maxAccountFields bounds an account's fields (count and size).
const (
	maxAccountFields = 100
	maxAccountBytes  = 64 << 10
)

func checkFields(fields map[string]any) error {
	if len(fields) > maxAccountFields {
		return fmt.Errorf("%w: at most %d account fields", ErrInvalid, maxAccountFields)
	}
	for k, v := range fields {
		if k == "" || len(k) > 200 {
			return fmt.Errorf("%w: an account field needs a key of 1 to 200 bytes", ErrInvalid)
		}
		switch v.(type) {
		case string, float64, bool, json.Number, nil, map[string]any, []any:
			// Apps may keep structured data (scopes, ids) in the account.
		default:
			return fmt.Errorf("%w: account field %s: want a JSON value", ErrInvalid, k)
		}
	}
	if len(mustJSON(fields)) > maxAccountBytes {
		return fmt.Errorf("%w: the account is larger than %d bytes", ErrInvalid, maxAccountBytes)
	}
	return nil
}

// CreateAccount sets up an account: the fields are checked with the app's
// /validate (the fields it answers are kept) and stored sealed.
func (s *Registry) CreateAccount(ctx context.Context, appID, authID string, fields map[string]any) (*Account, error) {
	a, err := s.App(ctx, appID)
	if err != nil {
		return nil, err
	}
	if authID, err = pickAuth(a.Descriptor, authID); err != nil {
		return nil, err
	}
	if authID == protocol.AuthOAuth1 || authID == protocol.AuthOAuth2 {
		if _, ok := fields["access_token"]; !ok {
			return nil, fmt.Errorf("%w: an OAuth account is connected through POST /api/apps/oauth/start (or give its access_token)", ErrInvalid)
		}
	}
	fields, name, err := s.checkAccount(ctx, a, authID, fields)
	if err != nil {
		return nil, err
	}
	return s.insertAccount(ctx, a.ID, authID, name, fields)
}

// checkAccount checks an account's values, marks them with the
// authentication id and validates them with the app: it returns the values
// to store and the account's name.
func (s *Registry) checkAccount(ctx context.Context, a *App, authID string, fields map[string]any) (map[string]any, string, error) {
	if fields == nil {
		fields = map[string]any{}
	}
	if err := checkFields(fields); err != nil {
		return nil, "", err
	}
	fields["auth"] = authID
	name, err := s.validate(ctx, a, authID, fields)
	if err != nil {
		return nil, "", err
	}
	return fields, name, nil
}

func (s *Registry) insertAccount(ctx context.Context, appID, authID, name string, fields map[string]any) (*Account, error) {
	now := s.now().UTC()
	acc := &Account{ID: newID(), AppID: appID, Auth: authID, Name: name, CreatedAt: now, UpdatedAt: now, Fields: keys(fields)}
	sealed, err := s.sealFields(acc.ID, fields)
	if err != nil {
		return nil, err
	}
	if err := s.on(s.db).insertAccount(ctx, acc, sealed); err != nil {
		return nil, fmt.Errorf("store the account: %w", err)
	}
	return acc, nil
}

func (s *Registry) sealFields(accountID string, fields map[string]any) (string, error) {
	b, err := json.Marshal(fields)
	if err != nil {
		return "", fmt.Errorf("encode the account: %w", err)
	}
	return s.seal.seal(b, "account:"+accountID), nil
}

// UpdateAccount merges fields over the stored ones (a null value removes
// a field), validates the result and stores it.
func (s *Registry) UpdateAccount(ctx context.Context, id string, fields map[string]any) (*Account, error) {
	acc, stored, a, err := s.accountApp(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := checkFields(fields); err != nil {
		return nil, err
	}
	for k, v := range fields {
		if v == nil {
			delete(stored, k)
		} else {
			stored[k] = v
		}
	}
	stored["auth"] = acc.Auth
	name, err := s.validate(ctx, a, acc.Auth, stored)
	if err != nil {
		return nil, err
	}
	if err := s.saveAccount(ctx, acc.ID, name, stored); err != nil {
		return nil, err
	}
	acc.Name, acc.Fields, acc.UpdatedAt = name, keys(stored), s.now().UTC()
	return acc, nil
}

func (s *Registry) saveAccount(ctx context.Context, id, name string, fields map[string]any) error {
	sealed, err := s.sealFields(id, fields)
	if err != nil {
		return err
	}
	if err := s.on(s.db).setAccount(ctx, id, sealed, s.now(), name); err != nil {
		return fmt.Errorf("store the account: %w", err)
	}
	return nil
}

// account returns an account and its opened fields.
func (s *Registry) account(ctx context.Context, id string) (*Account, map[string]any, error) {
	acc, sealed, err := s.on(s.db).account(ctx, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, fmt.Errorf("%w: no account %q", ErrNotFound, id)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read the account: %w", err)
	}
	plain, err := s.seal.open(sealed, "account:"+acc.ID)
	if err != nil {
		return nil, nil, fmt.Errorf("account %s: %w", acc.ID, err)
	}
	fields := map[string]any{}
	dec := json.NewDecoder(strings.NewReader(string(plain)))
	dec.UseNumber()
	if err := dec.Decode(&fields); err != nil {
		return nil, nil, fmt.Errorf("account %s: decode: %w", acc.ID, err)
	}
	acc.Fields = keys(fields)
	return &acc, fields, nil
}

// accountApp returns an account, its opened fields and its app.
func (s *Registry) accountApp(ctx context.Context, accountID string) (*Account, map[string]any, *App, error) {
	acc, fields, err := s.account(ctx, accountID)
	if err != nil {
		return nil, nil, nil, err
	}
	a, err := s.App(ctx, acc.AppID)
	if err != nil {
		return nil, nil, nil, err
	}
	return acc, fields, a, nil
}

// syncApp returns a sync's app, its account and the account's opened
// fields.
func (s *Registry) syncApp(ctx context.Context, sy *Sync) (*App, *Account, map[string]any, error) {
	a, err := s.App(ctx, sy.AppID)
	if err != nil {
		return nil, nil, nil, err
	}
	acc, fields, err := s.account(ctx, sy.AccountID)
	if err != nil {
		return nil, nil, nil, err
	}
	return a, acc, fields, nil
}

// Account returns one account (keys only).
func (s *Registry) Account(ctx context.Context, id string) (*Account, error) {
	acc, _, err := s.account(ctx, id)
	return acc, err
}

// Accounts lists the accounts, of one app when appID is not empty.
func (s *Registry) Accounts(ctx context.Context, appID string) ([]*Account, error) {
	ids, err := s.on(s.db).accountIDs(ctx, appID)
	if err != nil {
		return nil, err
	}
	out := []*Account{}
	for _, id := range ids {
		acc, _, err := s.account(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, acc)
	}
	return out, nil
}

// DeleteAccount removes an account no sync uses.
func (s *Registry) DeleteAccount(ctx context.Context, id string) error {
	if _, _, err := s.account(ctx, id); err != nil {
		return err
	}
	used, err := s.on(s.db).syncsOfAccount(ctx, id)
	if err != nil {
		return err
	}
	if len(used) > 0 {
		return fmt.Errorf("%w: sync %s uses the account; remove it first", ErrConflict, used[0])
	}
	if err := s.on(s.db).deleteAccount(ctx, id); err != nil {
		return fmt.Errorf("delete the account: %w", err)
	}
	return nil
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sortStrings(out)
	return out
}

// validate checks an account with the app's /validate; the fields it
// answers (other than name) are merged into fields.
func (s *Registry) validate(ctx context.Context, a *App, authID string, fields map[string]any) (string, error) {
	var resp map[string]any
	err := s.call(ctx, nil, a.URL, http.MethodPost, protocol.PathValidate, map[string]any{"id": authID, "fields": fields}, &resp)
	var ae *AppError
	if errors.As(err, &ae) && (ae.Status == http.StatusUnauthorized || ae.Status == http.StatusForbidden || ae.Status == http.StatusBadRequest) {
		return "", fmt.Errorf("%w: the app refused the account: %s", ErrInvalid, newMasker(fields, a.Descriptor).mask(ae.Message))
	}
	if err != nil {
		// A failed call stays an *AppError (its message masked), answered
		// as the app's failure (502, 503), not as an internal error.
		return "", maskAppError(err, fields, a.Descriptor)
	}
	name, _ := resp["name"].(string)
	for k, v := range resp {
		if k != "name" {
			fields[k] = v
		}
	}
	return name, nil
}

// appConfig reads the app's config with the account.
func (s *Registry) appConfig(ctx context.Context, a *App, account map[string]any) (*protocol.ConfigResponse, error) {
	var cfg protocol.ConfigResponse
	if err := s.call(ctx, nil, a.URL, http.MethodPost, protocol.PathConfig, map[string]any{"account": account}, &cfg); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// Config reads the config of an account's app (its types, filters and
// webhook support) with the account, for choosing a sync's types and
// filter.
func (s *Registry) Config(ctx context.Context, accountID string) (*protocol.ConfigResponse, error) {
	set, err := s.Setting(ctx, accountID)
	if err != nil {
		return nil, err
	}
	return set.Config, nil
}

// AccountSetting is an account with its app and the config the app
// answers for it: what a sync of the account is chosen from.
type AccountSetting struct {
	App     *App
	Account *Account
	Config  *protocol.ConfigResponse
}

// Setting reads an account, its app and the app's config for it (the app
// is asked, as Config does: an app's refusal is an *AppError, the
// account's secrets masked).
func (s *Registry) Setting(ctx context.Context, accountID string) (*AccountSetting, error) {
	acc, fields, a, err := s.accountApp(ctx, accountID)
	if err != nil {
		return nil, err
	}
	cfg, err := s.appConfig(ctx, a, fields)
	if err != nil {
		var ae *AppError
		if errors.As(err, &ae) {
			ae.Message = newMasker(fields, a.Descriptor).mask(ae.Message)
			return nil, ae
		}
		return nil, err
	}
	return &AccountSetting{App: a, Account: acc, Config: cfg}, nil
}
