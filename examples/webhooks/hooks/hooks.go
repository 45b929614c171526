// Package hooks is the webhooks example app: a shop's orders, synchronized
// in full or by delta on each run, and kept up to date between runs by the
// shop's webhooks. On install the app subscribes to the shop's order events
// at the address the service gives; each event the shop posts there reaches
// the app twice: verify checks its HMAC signature (and its age) and names
// the webhook, transform turns it into the changes of the order type.
//
// The app keeps no state: the secret of each webhook is derived from the
// app's key and the webhook's id (HMAC-SHA256), so verify needs nothing but
// the event, as the service sends it without an account.
package hooks

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/examples/webhooks/shop"
)

// PageSize is the most orders a page holds.
const PageSize = 200

// DefaultTolerance is how old an event may be, by its signed timestamp.
const DefaultTolerance = 5 * time.Minute

// Statuses are the order statuses.
var Statuses = []string{"pending", "paid", "shipped", "cancelled"}

// Order is an order; the struct declares the order type.
type Order struct {
	ID       string    `appkit:"id"`
	Name     string    `appkit:"name,name=Order"`
	Customer string    `appkit:"customer"`
	Status   string    `appkit:"status,single-select,options=pending|paid|shipped|cancelled"`
	Total    float64   `appkit:"total,format=Money,precision=2,unit=EUR"`
	Items    int       `appkit:"items,name=Articles"`
	Updated  time.Time `appkit:"updated,readonly"`
}

// Cursor is the order pages' cursor: the index of the next order.
type Cursor struct {
	Next int `json:"next"`
}

// Shop is the shop's API as the app uses it; *shop.Shop implements it.
type Shop interface {
	// Orders returns the live orders, or with since the ones changed after
	// it and the ids of those deleted after it.
	Orders(ctx context.Context, token string, since time.Time) ([]shop.Order, []string, error)
	// Subscribe adds or replaces a webhook subscription.
	Subscribe(ctx context.Context, token string, sub shop.Subscription) error
	// Unsubscribe removes one.
	Unsubscribe(ctx context.Context, token, id string) error
}

// Config configures the app.
type Config struct {
	// Key derives each webhook's secret; at least 16 bytes. Keep it across
	// restarts, or the events of webhooks installed before are refused.
	Key []byte
	// Tolerance is how old an event may be; 0 means DefaultTolerance.
	Tolerance time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// App is the webhooks example app over a shop.
type App struct {
	shop Shop
	cfg  Config
}

// New returns the app; it fails on a key shorter than 16 bytes.
func New(s Shop, cfg Config) (*App, error) {
	if len(cfg.Key) < 16 {
		return nil, errors.New("hooks: the webhook key must have at least 16 bytes")
	}
	if cfg.Tolerance <= 0 {
		cfg.Tolerance = DefaultTolerance
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &App{shop: s, cfg: cfg}, nil
}

// App declares the app.
func (a *App) App() *appkit.App {
	status := appkit.MultiDropdownFilter("status", "Status", func(context.Context, *appkit.DatalistRequest) ([]appkit.Option, error) {
		var out []appkit.Option
		for _, s := range Statuses {
			out = append(out, appkit.Option{Title: s, Value: s})
		}
		return out, nil
	}).Optional()
	return &appkit.App{
		ID: "webhooks", Name: "Shop orders", Version: "1.0.0",
		Description: "A shop's orders, kept up to date by its webhooks (appkit example)",
		Website:     "https://github.com/appkitgo/appkit/tree/main/examples/webhooks",
		Auth: []appkit.Auth{appkit.TokenAuth("Shop API token", "The API token of your shop", func(ctx context.Context, token string) (string, error) {
			if _, _, err := a.shop.Orders(ctx, token, a.cfg.Now()); err != nil {
				return "", a.shopError(err)
			}
			return "Demo shop", nil
		})},
		Sync: &appkit.Sync{
			Filters:     []appkit.Filter{status},
			DeltaMargin: time.Hour,
			Types: []appkit.Type{{
				ID: "order", Name: "Orders", Default: true, Delta: true,
				Data: appkit.Pages(func(ctx context.Context, req *appkit.DataRequest, c *Cursor) (*appkit.Page[Order, Cursor], error) {
					wanted, _ := status.Get(req.Filter)
					return a.page(ctx, req, c, wanted)
				}),
			}},
			Webhooks: &appkit.Webhooks{
				Install: a.install,
				Delete:  a.delete,
				Verify: func(ctx context.Context, ev *appkit.WebhookEvent) (string, error) {
					id, _, err := a.verify(ev)
					return id, err
				},
				Transform: func(ctx context.Context, ev *appkit.WebhookEvent) (appkit.Changes, error) {
					wanted, _ := status.Get(ev.Filter)
					return a.transform(ev, wanted)
				},
			},
		},
	}
}

// shopError maps the shop's refusal of the token to an invalid account.
func (a *App) shopError(err error) error {
	if errors.Is(err, shop.ErrToken) {
		return appkit.InvalidAccount("the shop refused the API token")
	}
	return err
}

// orderOf converts a shop order.
func orderOf(o shop.Order) Order {
	return Order{ID: o.ID, Name: fmt.Sprintf("Order %s (%s)", o.ID, o.Customer), Customer: o.Customer, Status: o.Status, Total: o.Total, Items: o.Items, Updated: o.Updated}
}

// page answers one page: delta (changes since an hour before the last run,
// and removals) when a last run is known and no status is selected, full
// otherwise.
func (a *App) page(ctx context.Context, req *appkit.DataRequest, c *Cursor, wanted []string) (*appkit.Page[Order, Cursor], error) {
	since, delta := req.Since() // an hour before the last run: Sync.DeltaMargin
	p := &appkit.Page[Order, Cursor]{Delta: delta && !req.Filter.Any()}
	if !p.Delta {
		since = time.Time{}
	}
	token, _ := appkit.TokenAuthToken.Get(req.Account)
	live, deleted, err := a.shop.Orders(ctx, token, since)
	if err != nil {
		return nil, a.shopError(err)
	}
	from := 0
	if c != nil {
		from = c.Next
	}
	if from < 0 || from > len(live) {
		return nil, appkit.BadRequest("pagination: next %d is outside 0..%d", from, len(live))
	}
	to := min(from+PageSize, len(live))
	for _, o := range live[from:to] {
		if len(wanted) == 0 || slices.Contains(wanted, o.Status) {
			p.Items = append(p.Items, orderOf(o))
		}
	}
	if to < len(live) {
		p.Next = &Cursor{Next: to}
	} else if p.Delta {
		p.Removed = deleted
	}
	return p, nil
}

// secret derives the secret of webhook id from the app's key.
func (a *App) secret(id string) []byte {
	h := hmac.New(sha256.New, a.cfg.Key)
	h.Write([]byte("appkit-webhooks-example/v1\x00" + id))
	return h.Sum(nil)
}

// install subscribes to the shop's order events at the service's address;
// a reinstall keeps the webhook's id (and so its secret).
func (a *App) install(ctx context.Context, req *appkit.WebhookRequest) (*appkit.Webhook, error) {
	if req.URL == "" {
		return nil, appkit.BadRequest("url: the service gave no address for the events")
	}
	id := ""
	if req.Webhook != nil && validHookID(req.Webhook.ID) {
		id = req.Webhook.ID
	} else {
		b := make([]byte, 12)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("webhook id: %w", err)
		}
		id = "wh_" + hex.EncodeToString(b)
	}
	events := []string{shop.OrderCreated, shop.OrderUpdated, shop.OrderDeleted}
	token, _ := appkit.TokenAuthToken.Get(req.Account)
	if err := a.shop.Subscribe(ctx, token, shop.Subscription{ID: id, URL: req.URL, Secret: a.secret(id), Events: events}); err != nil {
		return nil, a.shopError(err)
	}
	return &appkit.Webhook{ID: id, Events: events}, nil
}

// delete unsubscribes the webhook.
func (a *App) delete(ctx context.Context, req *appkit.WebhookRequest) error {
	if req.Webhook == nil || !validHookID(req.Webhook.ID) {
		return appkit.BadRequest("webhook: not a webhook of this app")
	}
	token, _ := appkit.TokenAuthToken.Get(req.Account)
	return a.shopError(a.shop.Unsubscribe(ctx, token, req.Webhook.ID))
}

// validHookID reports whether id has the form install gives: wh_ and 24
// hex digits.
func validHookID(id string) bool {
	if len(id) != 27 || id[:3] != "wh_" {
		return false
	}
	_, err := hex.DecodeString(id[3:])
	return err == nil
}

// transform verifies the event again (the service only transforms verified
// events; a second check costs one HMAC) and turns it into changes: the
// order set, or removed when it was deleted or no longer matches the
// selected statuses.
func (a *App) transform(ev *appkit.WebhookEvent, wanted []string) (appkit.Changes, error) {
	_, e, err := a.verify(ev)
	if err != nil {
		return nil, appkit.NewError(http.StatusUnauthorized, "%v", err)
	}
	var ch appkit.Change
	switch {
	case e.Kind == shop.OrderDeleted, len(wanted) > 0 && !slices.Contains(wanted, e.Order.Status):
		ch.Removed = []string{e.Order.ID}
	default:
		ch.Items = []any{orderOf(e.Order)}
	}
	return appkit.Changes{"order": ch}, nil
}
