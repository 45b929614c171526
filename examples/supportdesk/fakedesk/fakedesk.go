// Package fakedesk is a stand-in for a help desk's REST API, the upstream
// of the support-desk example app: customers, agents and tickets kept in
// memory and seeded with a small dataset, behind a bearer token. It is
// served in its own process (cmd/fakedesk) for the demo and the tests.
//
// The API (every /api route needs "Authorization: Bearer desk-demo"):
//
//	GET  /api/me                     {"name"}
//	GET  /api/customers              [{"id","name","email","vip"}]
//	GET  /api/agents?page=N&per_page=M   [{"id","name","email"}], page numbers from 1
//	GET  /api/tickets                {"tickets":[...],"deleted":[ids],"next_cursor":string|null}
//	     ?limit=1..100 (default 50) &cursor= &since=RFC 3339 (changes since: tickets
//	     updated after it, and the ids deleted after it) &customer=ID (repeatable)
//	     &agent=ID (repeatable) &created_from= &created_to= (RFC 3339) &open=true
//	POST /api/tickets/{id}/close     {"note"}: closes the ticket; 404 when there is none
//
// and, without a token, for tests and demos: POST /admin/tickets/{id}/delete,
// POST /admin/clock?add=DURATION (moves the desk's clock), and POST
// /admin/fail?status=N&times=K (the next K /api calls answer N, with
// Retry-After: 1 for 429 and 503).
package fakedesk

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Token is the one valid API token.
const Token = "desk-demo"

// Customer is a customer of the desk.
type Customer struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
	VIP   bool   `json:"vip"`
}

// Agent is a support agent.
type Agent struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Email string `json:"email"`
}

// Ticket is a ticket as the API answers it.
type Ticket struct {
	ID       string    `json:"id"`
	Subject  string    `json:"subject"`
	Body     string    `json:"body"`
	Status   string    `json:"status"`
	Priority int       `json:"priority"`
	Customer string    `json:"customer_id"`
	Assignee string    `json:"assignee_id,omitempty"`
	Created  time.Time `json:"created_at"`
	Updated  time.Time `json:"updated_at"`
	Due      string    `json:"due"`
	Tags     []string  `json:"tags"`

	deleted time.Time
}

// Desk is the in-memory help desk.
type Desk struct {
	mu        sync.Mutex
	clock     func() time.Time
	offset    time.Duration // added by /admin/clock
	customers []Customer
	agents    []Agent
	tickets   []*Ticket
	fail      struct{ status, times int }
}

// New returns a desk seeded with n tickets over 5 customers and 3 agents,
// the last one created an hour before now, on the clock now (nil: the
// wall clock).
func New(n int, now func() time.Time) *Desk {
	if now == nil {
		now = time.Now
	}
	d := &Desk{clock: now}
	for i, name := range []string{"Acme", "Globex", "Initech", "Umbrella", "Hooli"} {
		d.customers = append(d.customers, Customer{ID: fmt.Sprintf("c%d", i+1), Name: name, Email: strings.ToLower(name) + "@example.com", VIP: i%2 == 0})
	}
	for i, name := range []string{"Ada", "Grace", "Linus"} {
		d.agents = append(d.agents, Agent{ID: fmt.Sprintf("a%d", i+1), Name: name, Email: strings.ToLower(name) + "@desk.example"})
	}
	start := now().Add(-time.Duration(n) * time.Hour)
	for i := range n {
		at := start.Add(time.Duration(i) * time.Hour)
		t := &Ticket{
			ID: fmt.Sprintf("T-%d", i+1), Subject: fmt.Sprintf("Ticket %d: %s", i+1, []string{"cannot log in", "invoice is wrong", "feature request", "page is slow"}[i%4]),
			Body: "The customer **wrote**:\n\n> It does not work.", Status: []string{"open", "pending", "closed"}[i%3], Priority: 1 + i%4,
			Customer: d.customers[i%5].ID, Created: at, Updated: at, Due: at.AddDate(0, 0, 7).Format(time.DateOnly), Tags: []string{"support"},
		}
		if i%4 != 3 {
			t.Assignee = d.agents[i%3].ID
		}
		d.tickets = append(d.tickets, t)
	}
	return d
}

// ServeHTTP serves the API.
func (d *Desk) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /admin/tickets/{id}/delete", d.delete)
	mux.HandleFunc("POST /admin/clock", d.moveClock)
	mux.HandleFunc("POST /admin/fail", d.failNext)
	mux.HandleFunc("GET /api/me", func(w http.ResponseWriter, r *http.Request) {
		answer(w, 200, map[string]string{"name": "Demo help desk"})
	})
	mux.HandleFunc("GET /api/customers", func(w http.ResponseWriter, r *http.Request) { answer(w, 200, d.customers) })
	mux.HandleFunc("GET /api/agents", d.listAgents)
	mux.HandleFunc("GET /api/tickets", d.listTickets)
	mux.HandleFunc("POST /api/tickets/{id}/close", d.close)
	if strings.HasPrefix(r.URL.Path, "/api/") {
		if r.Header.Get("Authorization") != "Bearer "+Token {
			answer(w, http.StatusUnauthorized, map[string]string{"message": "invalid API token"})
			return
		}
		d.mu.Lock()
		status := 0
		if d.fail.times > 0 {
			d.fail.times--
			status = d.fail.status
		}
		d.mu.Unlock()
		if status != 0 {
			if status == 429 || status == 503 {
				w.Header().Set("Retry-After", "1")
			}
			answer(w, status, map[string]string{"message": "injected failure"})
			return
		}
	}
	mux.ServeHTTP(w, r)
}

func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (d *Desk) listAgents(w http.ResponseWriter, r *http.Request) {
	page, err1 := strconv.Atoi(r.URL.Query().Get("page"))
	per, err2 := strconv.Atoi(r.URL.Query().Get("per_page"))
	if err1 != nil || err2 != nil || page < 1 || per < 1 || per > 100 {
		answer(w, 400, map[string]string{"message": "page and per_page (1..100) are required"})
		return
	}
	from := min((page-1)*per, len(d.agents))
	answer(w, 200, d.agents[from:min(from+per, len(d.agents))])
}

func (d *Desk) listTickets(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	bad := func(msg string) { answer(w, 400, map[string]string{"message": msg}) }
	limit := 50
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			bad("limit: want 1..100")
			return
		}
		limit = n
	}
	var times [3]time.Time
	for i, k := range []string{"since", "created_from", "created_to"} {
		if v := q.Get(k); v != "" {
			t, err := time.Parse(time.RFC3339Nano, v)
			if err != nil {
				bad(k + ": want an RFC 3339 time")
				return
			}
			times[i] = t
		}
	}
	since, from, to := times[0], times[1], times[2]
	d.mu.Lock()
	defer d.mu.Unlock()
	at := 0
	if c := q.Get("cursor"); c != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(c, "after-"))
		if err != nil || !strings.HasPrefix(c, "after-") || n < 0 || n > len(d.tickets) {
			bad("cursor: not a cursor of this desk")
			return
		}
		at = n
	}
	out := struct {
		Tickets []Ticket `json:"tickets"`
		Deleted []string `json:"deleted,omitempty"`
		Next    *string  `json:"next_cursor"`
	}{Tickets: []Ticket{}}
	for ; at < len(d.tickets) && len(out.Tickets)+len(out.Deleted) < limit; at++ {
		t := d.tickets[at]
		switch {
		case !t.deleted.IsZero():
			if !since.IsZero() && t.deleted.After(since) {
				out.Deleted = append(out.Deleted, t.ID)
			}
		case !since.IsZero() && !t.Updated.After(since),
			q.Has("customer") && !slices.Contains(q["customer"], t.Customer),
			q.Has("agent") && !slices.Contains(q["agent"], t.Assignee),
			!from.IsZero() && t.Created.Before(from), !to.IsZero() && t.Created.After(to),
			q.Get("open") == "true" && t.Status == "closed":
		default:
			out.Tickets = append(out.Tickets, *t)
		}
	}
	if at < len(d.tickets) {
		next := "after-" + strconv.Itoa(at)
		out.Next = &next
	}
	answer(w, 200, out)
}

// now is the desk's time; d.mu is held.
func (d *Desk) now() time.Time { return d.clock().Add(d.offset) }

// ticket returns the live ticket that the path's id names, or answers 404
// and returns nil; d.mu is held.
func (d *Desk) ticket(w http.ResponseWriter, r *http.Request) *Ticket {
	id := r.PathValue("id")
	for _, t := range d.tickets {
		if t.ID == id && t.deleted.IsZero() {
			return t
		}
	}
	answer(w, 404, map[string]string{"message": "no such ticket"})
	return nil
}

func (d *Desk) close(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Note string `json:"note"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&in); err != nil {
		answer(w, 400, map[string]string{"message": "body: want {\"note\"}"})
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.ticket(w, r)
	if t == nil {
		return
	}
	t.Status, t.Updated = "closed", d.now()
	if note := strings.TrimSpace(in.Note); note != "" {
		t.Body += "\n\n---\n\n" + note
	}
	answer(w, 200, t)
}

func (d *Desk) delete(w http.ResponseWriter, r *http.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.ticket(w, r)
	if t == nil {
		return
	}
	t.deleted = d.now()
	answer(w, 200, map[string]string{})
}

func (d *Desk) moveClock(w http.ResponseWriter, r *http.Request) {
	add, err := time.ParseDuration(r.URL.Query().Get("add"))
	if err != nil {
		answer(w, 400, map[string]string{"message": "add: want a duration"})
		return
	}
	d.mu.Lock()
	d.offset += add
	now := d.now()
	d.mu.Unlock()
	answer(w, 200, map[string]string{"now": now.Format(time.RFC3339)})
}

func (d *Desk) failNext(w http.ResponseWriter, r *http.Request) {
	status, err1 := strconv.Atoi(r.URL.Query().Get("status"))
	times, err2 := strconv.Atoi(r.URL.Query().Get("times"))
	if err1 != nil || err2 != nil || status < 400 || status > 599 || times < 0 {
		answer(w, 400, map[string]string{"message": "status (4xx/5xx) and times are required"})
		return
	}
	d.mu.Lock()
	d.fail.status, d.fail.times = status, times
	d.mu.Unlock()
	answer(w, 200, map[string]string{})
}
