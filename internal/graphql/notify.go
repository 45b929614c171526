package graphql

import (
	"fmt"
	"net/mail"
	"strings"

	"github.com/appkitgo/appkit/internal/store"
)

// Assignments, creators and notifications, kept in the API's own tables.

// MaxRecipients bounds the addresses of one notifyUsers.
const MaxRecipients = 100

// assign adds the viewer to the entity's assignees (once).
func (g *group) assign(id string) error {
	found, err := g.exists("SELECT 1 FROM "+assignmentsTable+" WHERE entity_id = ? AND email = ?", id, g.e.viewer.Email)
	if err != nil || found {
		return err
	}
	return g.exec("INSERT INTO "+assignmentsTable+" (entity_id, email, created) VALUES (?, ?, ?)", id, g.e.viewer.Email, g.e.now())
}

func (g *group) exists(q string, args ...any) (bool, error) {
	rows, err := g.tx.Querier().QueryContext(g.e.ctx, g.e.st.Dialect().Rebind(q), args...)
	if err != nil {
		return false, fmt.Errorf("graphql: %w", err)
	}
	defer rows.Close()
	return rows.Next(), rows.Err()
}

// column returns the first column of a query's rows.
func (g *group) column(q string, args ...any) ([]string, error) {
	var out []string
	err := scanRows(g.e.ctx, g.tx.Querier(), g.e.st.Dialect().Rebind(q), args, func(scan func(...any) error) error {
		var s string
		if err := scan(&s); err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("graphql: %w", err)
	}
	return out, nil
}

// notify sends one notification per recipient about entity id.
func (g *group) notify(recipients []string, subject, message, id string) (int, error) {
	seen := map[string]bool{}
	n := 0
	for _, r := range recipients {
		r = strings.ToLower(strings.TrimSpace(r))
		if r == "" || seen[r] {
			continue
		}
		seen[r] = true
		if err := checkText("the notification", len(subject)+len(message), MaxTextBytes); err != nil {
			return n, err
		}
		if err := g.e.charge(len(subject) + len(message)); err != nil {
			return n, err
		}
		if err := g.exec("INSERT INTO "+notificationsTable+" (id, recipient, sender, subject, message, entity_id, entity_type, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			seqID(), r, g.e.viewer.Email, subject, message, id, g.o.display(), g.e.now()); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// notifyEach fills the templates per entity and notifies the recipients
// who(id) names.
func (g *group) notifyEach(args *inputObj, ids []string, who func(id string) ([]string, error)) (int, error) {
	subject, _ := argValue(args, "subject").(string)
	message, _ := argValue(args, "message").(string)
	if strings.TrimSpace(subject) == "" && strings.TrimSpace(message) == "" {
		return 0, userErrorf("a notification needs a subject or a message")
	}
	subjects, err := g.fill(subject, ids)
	if err != nil {
		return 0, err
	}
	messages, err := g.fill(message, ids)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, id := range ids {
		to, err := who(id)
		if err != nil {
			return total, err
		}
		n, err := g.notify(to, subjects[id], messages[id], id)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// recipients checks the addresses of notifyUsers.
func recipients(v any) ([]string, error) {
	list := listOf(v)
	if len(list) == 0 {
		return nil, userErrorf("to needs at least one e-mail address")
	}
	if len(list) > MaxRecipients {
		return nil, userErrorf("to takes at most %d addresses", MaxRecipients)
	}
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, _ := x.(string)
		a, err := mail.ParseAddress(s)
		if err != nil || a.Name != "" || a.Address != strings.TrimSpace(s) {
			return nil, userErrorf("to: %q is not an e-mail address", s)
		}
		out = append(out, a.Address)
	}
	return out, nil
}

// notifications answers me { notifications }.
func (e *executor) notifications(c *cfield) ([]any, error) {
	limit := int64(50)
	if a := c.first().Arguments.ForName("limit"); a != nil {
		if n, ok := value(a.Value, e.vars).(int64); ok {
			limit = n
		}
	}
	if limit < 0 || limit > 1000 {
		return nil, userErrorf("limit must be between 0 and 1000")
	}
	fields := e.sub(c, tNote)
	out := []any{}
	q := e.st.Dialect().Rebind("SELECT sender, subject, message, entity_id, entity_type, created FROM " + notificationsTable +
		" WHERE recipient = ? ORDER BY created DESC, id DESC LIMIT ?")
	err := scanRows(e.ctx, e.st.DB(), q, []any{strings.ToLower(e.viewer.Email), limit}, func(scan func(...any) error) error {
		var sender, subject, message string
		var entityID, entityType *string
		var created int64
		if err := scan(&sender, &subject, &message, &entityID, &entityType, &created); err != nil {
			return err
		}
		out = append(out, objectOf(fields, tNote, func(f *cfield) any {
			switch f.name {
			case "subject":
				return subject
			case "message":
				return message
			case "sender":
				return sender
			case "createdAt":
				return store.FormatDateTime(created)
			case "entity":
				if entityID == nil {
					return nil
				}
				typ := ""
				if entityType != nil {
					typ = *entityType
				}
				return entityRef(e.sub(f, tEntityRef), *entityID, typ)
			}
			return nil
		}))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("graphql: read notifications: %w", err)
	}
	return out, nil
}

func entityRef(fields []*cfield, id, typ string) *omap {
	return objectOf(fields, tEntityRef, func(s *cfield) any {
		switch s.name {
		case "id":
			return id
		case "type":
			return typ
		}
		return nil
	})
}
