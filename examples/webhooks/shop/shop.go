// Package shop simulates the external system of the webhooks example: an
// online shop's orders, and webhook subscriptions to which the shop sends
// every change of an order as a signed HTTP POST, the way payment and
// commerce platforms do.
//
// A subscription names its own id and secret. Each event is one JSON body
// ([Event]) posted to the subscription's URL with three headers:
//
//	X-Shop-Hook       the subscription's id
//	X-Shop-Event      the event's kind: order.created, order.updated, order.deleted
//	X-Shop-Signature  t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed by the secret>
//
// The timestamp inside the signature lets a receiver refuse replays of old
// events.
package shop

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// The headers of an event.
const (
	HeaderHook      = "X-Shop-Hook"
	HeaderEvent     = "X-Shop-Event"
	HeaderSignature = "X-Shop-Signature"
)

// The event kinds.
const (
	OrderCreated = "order.created"
	OrderUpdated = "order.updated"
	OrderDeleted = "order.deleted"
)

// Order is an order of the shop, as its events carry it.
type Order struct {
	// ID identifies the order.
	ID string `json:"id"`
	// Customer is the buyer's name.
	Customer string `json:"customer"`
	// Status is pending, paid, shipped or cancelled.
	Status string `json:"status"`
	// Total is the amount in euros.
	Total float64 `json:"total"`
	// Items counts the order's articles.
	Items int `json:"items"`
	// Updated is the time of the last change.
	Updated time.Time `json:"updated"`

	deleted time.Time
}

// Event is the body of one event.
type Event struct {
	// Kind is the event's kind (OrderCreated, ...).
	Kind string `json:"event"`
	// At is when the change happened.
	At time.Time `json:"at"`
	// Order is the order after the change (only its id for a deletion).
	Order Order `json:"order"`
}

// Subscription is a webhook subscription.
type Subscription struct {
	// ID is the subscriber's name for it, sent back in HeaderHook.
	ID string
	// URL receives the events.
	URL string
	// Secret keys the signatures.
	Secret []byte
	// Events lists the kinds sent; empty means all.
	Events []string
}

// Shop is the simulated shop. Its methods stand in for the shop's API.
type Shop struct {
	// Token is the API token it accepts.
	Token string
	// Client posts the events; nil means a client with a 5 s timeout.
	Client *http.Client
	// Now is its clock; nil means time.Now.
	Now func() time.Time

	mu     sync.Mutex
	orders []*Order // in creation order; deleted ones stay as tombstones
	subs   map[string]Subscription
	wg     sync.WaitGroup
	errs   []error
}

// New returns a shop with n orders, accepting token.
func New(token string, n int, now func() time.Time) *Shop {
	if now == nil {
		now = time.Now
	}
	s := &Shop{Token: token, Now: now, subs: map[string]Subscription{}}
	start := now().Add(-time.Duration(n) * time.Hour)
	for i := range n {
		s.orders = append(s.orders, &Order{
			ID: fmt.Sprintf("o-%d", i+1), Customer: []string{"Ada", "Bo", "Cy", "Di", "Ed"}[i%5],
			Status: []string{"pending", "paid", "shipped"}[i%3], Total: float64(1000+i*37%9000) / 100, Items: 1 + i%4,
			Updated: start.Add(time.Duration(i) * time.Hour).UTC(),
		})
	}
	return s
}

// ErrToken is the refusal of an unknown token.
var ErrToken = errors.New("shop: unknown API token")

func (s *Shop) auth(token string) error {
	if s.Token == "" || !hmac.Equal([]byte(token), []byte(s.Token)) {
		return ErrToken
	}
	return nil
}

// Orders returns the live orders and, when since is not zero, only those
// changed after since and the ids of those deleted after it.
func (s *Shop) Orders(_ context.Context, token string, since time.Time) (live []Order, deleted []string, err error) {
	if err := s.auth(token); err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.orders {
		switch {
		case !o.deleted.IsZero():
			if !since.IsZero() && o.deleted.After(since) {
				deleted = append(deleted, o.ID)
			}
		case since.IsZero() || o.Updated.After(since):
			live = append(live, *o)
		}
	}
	return live, deleted, nil
}

// Subscribe adds (or replaces) a subscription.
func (s *Shop) Subscribe(_ context.Context, token string, sub Subscription) error {
	if err := s.auth(token); err != nil {
		return err
	}
	if sub.ID == "" || sub.URL == "" || len(sub.Secret) < 16 {
		return errors.New("shop: a subscription needs an id, a URL and a secret of 16 bytes or more")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs[sub.ID] = sub
	return nil
}

// Unsubscribe removes a subscription; removing an unknown one is no error.
func (s *Shop) Unsubscribe(_ context.Context, token, id string) error {
	if err := s.auth(token); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.subs, id)
	return nil
}

// Subscriptions returns the subscriptions' ids.
func (s *Shop) Subscriptions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for id := range s.subs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Put creates or updates an order (as the shop's users do) and sends the
// event.
func (s *Shop) Put(o Order) {
	s.mu.Lock()
	o.Updated = s.Now().UTC()
	kind := OrderCreated
	for i, old := range s.orders {
		if old.ID == o.ID && old.deleted.IsZero() {
			s.orders[i], kind = &o, OrderUpdated
			break
		}
	}
	if kind == OrderCreated {
		s.orders = append(s.orders, &o)
	}
	s.mu.Unlock()
	s.send(Event{Kind: kind, At: o.Updated, Order: o})
}

// Delete deletes an order and sends the event; it reports whether the
// order existed.
func (s *Shop) Delete(id string) bool {
	s.mu.Lock()
	var at time.Time
	for _, o := range s.orders {
		if o.ID == id && o.deleted.IsZero() {
			at = s.Now().UTC()
			o.deleted = at
		}
	}
	s.mu.Unlock()
	if at.IsZero() {
		return false
	}
	s.send(Event{Kind: OrderDeleted, At: at, Order: Order{ID: id}})
	return true
}

// send posts ev to every subscription that wants it, in the background.
func (s *Shop) send(ev Event) {
	body, err := json.Marshal(ev)
	if err != nil {
		panic(err) // an Event always encodes
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sub := range s.subs {
		if len(sub.Events) > 0 && !slices.Contains(sub.Events, ev.Kind) {
			continue
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			if err := s.deliver(sub, ev.Kind, body); err != nil {
				s.mu.Lock()
				s.errs = append(s.errs, err)
				s.mu.Unlock()
			}
		}()
	}
}

// deliver posts one event.
func (s *Shop) deliver(sub Subscription, kind string, body []byte) error {
	req, err := http.NewRequest(http.MethodPost, sub.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("shop: deliver to %s: %w", sub.ID, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderHook, sub.ID)
	req.Header.Set(HeaderEvent, kind)
	req.Header.Set(HeaderSignature, Sign(sub.Secret, s.Now(), body))
	c := s.Client
	if c == nil {
		c = &http.Client{Timeout: 5 * time.Second}
	}
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("shop: deliver to %s: %w", sub.ID, err)
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("shop: deliver to %s: status %d", sub.ID, resp.StatusCode)
	}
	return nil
}

// Flush waits until every event sent so far was delivered and returns the
// delivery errors since the last Flush.
func (s *Shop) Flush() error {
	s.wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	err := errors.Join(s.errs...)
	s.errs = nil
	return err
}

// Sign returns the signature header of body sent at t.
func Sign(secret []byte, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, ts, body))
}

// mac is HMAC-SHA256 of "<ts>.<body>".
func mac(secret []byte, ts string, body []byte) []byte {
	h := hmac.New(sha256.New, secret)
	h.Write([]byte(ts))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}
