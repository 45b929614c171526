// Package desk is the support-desk example app: customers and their
// tickets, synchronized with filters, paging and delta, and an action that
// closes a ticket. Its data lives in memory (seeded with a small dataset),
// as a stand-in for a help-desk API.
package desk

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/daterange"
)

// Token is the one valid API token.
const Token = "desk-demo"

// PageSize is the most tickets a page holds.
const PageSize = 50

// Customer is a customer; the struct declares the customer type.
type Customer struct {
	ID    string `appkit:"id"`
	Name  string `appkit:"name"`
	Email string `appkit:"email,email"`
	VIP   bool   `appkit:"vip,name=VIP"`
}

// Ticket is a ticket; the struct declares the ticket type.
type Ticket struct {
	ID       string     `appkit:"id"`
	Name     string     `appkit:"name,name=Subject"`
	Body     string     `appkit:"body,md"`
	Status   string     `appkit:"status,single-select,options=open|pending|closed"`
	Priority int        `appkit:"priority"`
	Customer string     `appkit:"customer,ref=customer,inverse=Tickets"`
	Created  time.Time  `appkit:"created,readonly"`
	Updated  time.Time  `appkit:"updated,readonly"`
	Due      appkit.Day `appkit:"due"`
	Tags     []string   `appkit:"tags,multi-select"`

	deleted time.Time // when the ticket was deleted; zero while it exists
}

// Cursor is the ticket pages' cursor: the index of the next ticket.
type Cursor struct {
	Next int `json:"next"`
}

// Desk is the in-memory help desk behind the app.
type Desk struct {
	mu        sync.Mutex
	now       func() time.Time
	customers []Customer
	tickets   []*Ticket // in creation order; deleted ones stay as tombstones
}

// New returns a desk seeded with n tickets over 5 customers, on the clock
// now (nil: the wall clock).
func New(n int, now func() time.Time) *Desk {
	if now == nil {
		now = time.Now
	}
	d := &Desk{now: now}
	for i, name := range []string{"Acme", "Globex", "Initech", "Umbrella", "Hooli"} {
		d.customers = append(d.customers, Customer{ID: fmt.Sprintf("c%d", i+1), Name: name, Email: strings.ToLower(name) + "@example.com", VIP: i%2 == 0})
	}
	start := now().Add(-time.Duration(n) * time.Hour)
	for i := range n {
		at := start.Add(time.Duration(i) * time.Hour)
		d.tickets = append(d.tickets, &Ticket{
			ID: fmt.Sprintf("T-%d", i+1), Name: fmt.Sprintf("Ticket %d: %s", i+1, []string{"cannot log in", "invoice is wrong", "feature request", "page is slow"}[i%4]),
			Body: "The customer **wrote**:\n\n> It does not work.", Status: []string{"open", "pending", "closed"}[i%3], Priority: 1 + i%4,
			Customer: d.customers[i%5].ID, Created: at, Updated: at, Due: appkit.DayOf(at.AddDate(0, 0, 7)), Tags: []string{"support"},
		})
	}
	return d
}

// App declares the support-desk app.
func (d *Desk) App() *appkit.App {
	customers := appkit.MultiDropdownFilter("customers", "Customers", d.customerOptions).Optional()
	created := appkit.DateRangeFilter("created", "Created").Optional()
	openOnly := appkit.BoolFilter("open", "Open tickets only").Optional()
	return &appkit.App{
		ID: "supportdesk", Name: "Support desk", Version: "1.0.0", Description: "Customers and tickets of a help desk (appkit example)",
		Website: "https://github.com/appkitgo/appkit/tree/main/examples/supportdesk",
		Auth:    []appkit.Auth{appkit.TokenAuth("API token", "Your help-desk API token", checkToken)},
		Sync: &appkit.Sync{
			Types: []appkit.Type{
				{ID: "customer", Name: "Customers", Default: true, Data: appkit.All(d.allCustomers)},
				{ID: "ticket", Name: "Tickets", Default: true, Delta: true, Data: appkit.Pages(func(ctx context.Context, req *appkit.DataRequest, c *Cursor) (*appkit.Page[Ticket, Cursor], error) {
					who, _ := customers.Get(req.Filter)
					when, _ := created.Get(req.Filter)
					open, _ := openOnly.Get(req.Filter)
					return d.ticketPage(req, c, selection{who, when, open})
				})},
			},
			Filters: []appkit.Filter{customers, created, openOnly},
		},
		Actions: []appkit.Action{{
			ID: "close-ticket", Name: "Close a ticket", Description: "Closes a ticket with a closing note",
			Args: []appkit.Arg{{ID: "ticket", Name: "Ticket id", Type: appkit.ArgText}, {ID: "note", Name: "Note", Type: appkit.ArgTextArea, TextTemplate: true, Optional: true}},
			Run:  d.closeTicket,
		}},
	}
}

func checkToken(_ context.Context, token string) (string, error) {
	if token != Token {
		return "", appkit.InvalidAccount("the help desk refused the token")
	}
	return "Demo help desk", nil
}

func (d *Desk) customerOptions(ctx context.Context, req *appkit.DatalistRequest) ([]appkit.Option, error) {
	if _, err := checkToken(ctx, req.Account.String("token")); err != nil {
		return nil, err
	}
	var out []appkit.Option
	for _, c := range d.customers {
		out = append(out, appkit.Option{Title: c.Name, Value: c.ID})
	}
	return out, nil
}

func (d *Desk) allCustomers(ctx context.Context, req *appkit.DataRequest) ([]Customer, error) {
	if _, err := checkToken(ctx, req.Account.String("token")); err != nil {
		return nil, err
	}
	return d.customers, nil
}

// selection is a request's filter.
type selection struct {
	customers []string
	created   daterange.Range
	openOnly  bool
}

func (s selection) filtered() bool {
	return len(s.customers) > 0 || s.created.Min != nil || s.created.Max != nil || s.openOnly
}

func (s selection) match(t *Ticket) bool {
	return (len(s.customers) == 0 || slices.Contains(s.customers, t.Customer)) &&
		(s.created.Min == nil || !t.Created.Before(*s.created.Min)) && (s.created.Max == nil || !t.Created.After(*s.created.Max)) &&
		(!s.openOnly || t.Status != "closed")
}

// ticketPage answers one page. Without a filter and with a last run it
// answers delta (changes since an hour before the last run, and
// removals); with a filter it answers full, since an edited selection
// cannot be expressed as a delta.
func (d *Desk) ticketPage(req *appkit.DataRequest, c *Cursor, sel selection) (*appkit.Page[Ticket, Cursor], error) {
	if _, err := checkToken(context.Background(), req.Account.String("token")); err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	from := 0
	if c != nil {
		from = c.Next
	}
	if from < 0 || from > len(d.tickets) {
		return nil, appkit.BadRequest("pagination: next %d is outside 0..%d", from, len(d.tickets))
	}
	since := req.LastSynchronizedAt.Add(-time.Hour)
	page := &appkit.Page[Ticket, Cursor]{Delta: !req.LastSynchronizedAt.IsZero() && !sel.filtered()}
	i := from
	for ; i < len(d.tickets) && len(page.Items)+len(page.Removed) < PageSize; i++ {
		t := d.tickets[i]
		switch {
		case page.Delta && !t.deleted.IsZero():
			if t.deleted.After(since) {
				page.Removed = append(page.Removed, t.ID)
			}
		case !t.deleted.IsZero(), page.Delta && !t.Updated.After(since), !sel.match(t):
		default:
			page.Items = append(page.Items, *t)
		}
	}
	if i < len(d.tickets) {
		page.Next = &Cursor{Next: i}
	}
	return page, nil
}

func (d *Desk) closeTicket(ctx context.Context, req *appkit.ActionRequest) error {
	if _, err := checkToken(ctx, req.Account.String("token")); err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	id := req.Args.String("ticket")
	for _, t := range d.tickets {
		if t.ID == id && t.deleted.IsZero() {
			t.Status, t.Updated = "closed", d.now()
			if note := strings.TrimSpace(req.Args.String("note")); note != "" {
				t.Body += "\n\n---\n\n" + note
			}
			return nil
		}
	}
	return appkit.BadRequest("ticket %q does not exist", id)
}

// Delete deletes a ticket (as the help desk's users do); the next delta
// page removes it.
func (d *Desk) Delete(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, t := range d.tickets {
		if t.ID == id && t.deleted.IsZero() {
			t.deleted = d.now()
			return true
		}
	}
	return false
}
