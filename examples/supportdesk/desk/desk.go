// Package desk is the support-desk example app: the customers, agents and
// tickets of a help desk, read from its REST API over HTTP through
// appkit/upstream, with filters, paging, delta with removals, and an
// action that closes a ticket. cmd/fakedesk serves a stand-in of that API.
package desk

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/upstream"
)

// Customer is a customer; the struct declares the customer type and
// decodes the API's customers.
type Customer struct {
	ID    string `appkit:"id" json:"id"`
	Name  string `appkit:"name" json:"name"`
	Email string `appkit:"email,email" json:"email"`
	VIP   bool   `appkit:"vip,name=VIP" json:"vip"`
}

// Agent is a support agent.
type Agent struct {
	ID    string `appkit:"id" json:"id"`
	Name  string `appkit:"name" json:"name"`
	Email string `appkit:"email,email" json:"email"`
}

// Ticket is a ticket; the struct declares the ticket type and decodes the
// API's tickets.
type Ticket struct {
	ID       string     `appkit:"id" json:"id"`
	Name     string     `appkit:"name,name=Subject" json:"subject"`
	Body     string     `appkit:"body,md" json:"body"`
	Status   string     `appkit:"status,single-select,options=open|pending|closed" json:"status"`
	Priority int        `appkit:"priority" json:"priority"`
	Customer string     `appkit:"customer,ref=customer,inverse=Tickets" json:"customer_id"`
	Assignee string     `appkit:"assignee,ref=agent,inverse=Tickets,omitempty" json:"assignee_id"`
	Created  time.Time  `appkit:"created,readonly" json:"created_at"`
	Updated  time.Time  `appkit:"updated,readonly" json:"updated_at"`
	Due      appkit.Day `appkit:"due" json:"due"`
	Tags     []string   `appkit:"tags,multi-select" json:"tags"`
}

// Config configures the app.
type Config struct {
	// URL is the help desk's API root ("http://127.0.0.1:8081/api").
	URL string
	// HTTPClient, optional, carries the calls (a recorder in tests).
	HTTPClient *http.Client
	// Logger receives the request log; nil means appkit's default.
	Logger *zerolog.Logger
}

// safetyMargin is subtracted from lastSynchronizedAt, for clock skew and
// runs that overlapped a change.
const safetyMargin = time.Hour

// New declares the support-desk app.
func New(cfg Config) *appkit.App {
	api := &upstream.Client{BaseURL: cfg.URL, Auth: upstream.Bearer("token"), HTTPClient: cfg.HTTPClient, Logger: cfg.Logger, RateLimit: 20, Burst: 10}
	options := func(path string) appkit.DatalistFunc {
		return func(ctx context.Context, req *appkit.DatalistRequest) ([]appkit.Option, error) {
			list, err := upstream.Get[[]struct{ ID, Name string }](ctx, api.For(req.Account), path, url.Values{"page": {"1"}, "per_page": {"100"}})
			var out []appkit.Option
			for _, c := range list {
				out = append(out, appkit.Option{Title: c.Name, Value: c.ID})
			}
			return out, err
		}
	}
	customers := appkit.MultiDropdownFilter("customers", "Customers", options("/customers")).Optional()
	agents := appkit.MultiDropdownFilter("agents", "Agents", options("/agents")).Optional()
	created := appkit.DateRangeFilter("created", "Created").Optional()
	openOnly := appkit.BoolFilter("open", "Open tickets only").Optional()
	filtered := func(f appkit.Filters) bool {
		return f.Has(customers) || f.Has(agents) || f.Has(created) || f.Has(openOnly)
	}
	tickets := upstream.List[Ticket, Ticket]{
		Client: api, Path: "/tickets", Pager: upstream.BodyCursor("next_cursor", "cursor").Items("tickets"),
		Query: func(req *appkit.DataRequest) (url.Values, error) {
			q := url.Values{"limit": {"50"}}
			if who, ok := customers.Get(req.Filter); ok {
				q["customer"] = who
			}
			if who, ok := agents.Get(req.Filter); ok {
				q["agent"] = who
			}
			when, _ := created.Get(req.Filter)
			for k, t := range map[string]*time.Time{"created_from": when.Min, "created_to": when.Max} {
				if t != nil {
					q.Set(k, t.Format(time.RFC3339Nano))
				}
			}
			if open, _ := openOnly.Get(req.Filter); open {
				q.Set("open", "true")
			}
			if !req.LastSynchronizedAt.IsZero() && !filtered(req.Filter) {
				q.Set("since", req.LastSynchronizedAt.Add(-safetyMargin).Format(time.RFC3339Nano))
			}
			return q, nil
		},
		// A delta cannot follow an edited selection: with a filter, full.
		Delta:   func(req *appkit.DataRequest) bool { return !req.LastSynchronizedAt.IsZero() && !filtered(req.Filter) },
		Removed: "deleted",
	}
	return &appkit.App{
		ID: "supportdesk", Name: "Support desk", Version: "2.0.0", Description: "Customers, agents and tickets of a help desk (appkit example)",
		Website: "https://github.com/appkitgo/appkit/tree/main/examples/supportdesk",
		Logger:  cfg.Logger,
		Auth: []appkit.Auth{appkit.TokenAuth("API token", "Your help-desk API token", func(ctx context.Context, token string) (string, error) {
			me, err := upstream.Get[struct{ Name string }](ctx, api.For(appkit.Account{"token": token}), "/me", nil)
			return me.Name, err
		})},
		Sync: &appkit.Sync{
			Types: []appkit.Type{
				{ID: "customer", Name: "Customers", Default: true, Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]Customer, error) {
					return upstream.Get[[]Customer](ctx, api.For(req.Account), "/customers", nil)
				})},
				{ID: "agent", Name: "Agents", Default: true, Data: upstream.Items[Agent, Agent](api, "/agents", upstream.PageNumber("page", "per_page", 50), nil)},
				{ID: "ticket", Name: "Tickets", Default: true, Delta: true, Data: tickets.Handler()},
			},
			Filters: []appkit.Filter{customers, agents, created, openOnly},
		},
		Actions: []appkit.Action{{
			ID: "close-ticket", Name: "Close a ticket", Description: "Closes a ticket with a closing note",
			Args: []appkit.Arg{{ID: "ticket", Name: "Ticket id", Type: appkit.ArgText}, {ID: "note", Name: "Note", Type: appkit.ArgTextArea, TextTemplate: true, Optional: true}},
			Run: func(ctx context.Context, req *appkit.ActionRequest) error {
				id := req.Args.String("ticket")
				_, err := upstream.Send[map[string]string, any](ctx, api.For(req.Account), http.MethodPost, "/tickets/"+url.PathEscape(id)+"/close", map[string]string{"note": req.Args.String("note")})
				if errors.Is(err, upstream.ErrNotFound) {
					return appkit.BadRequest("ticket %q does not exist", id)
				}
				return err
			},
		}},
	}
}
