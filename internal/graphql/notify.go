package graphql

import (
	"net/mail"
	"strings"

	"github.com/appkitgo/appkit/internal/store"
)

// Assignments, creators and notifications, kept by the store (attached.go).

// MaxRecipients bounds the addresses of one notifyUsers.
const MaxRecipients = 100

// assign adds the viewer to the entity's assignees (once).
func (g *group) assign(id string) error {
	return g.tx.Assign(id, g.e.viewer.Email, g.e.now())
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
		if err := g.tx.AddNotification(store.Notification{Recipient: r, Sender: g.e.viewer.Email, Subject: subject, Message: message,
			EntityID: id, EntityType: g.o.display(), Created: g.e.now()}); err != nil {
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
	notes, err := e.st.Attached().Notifications(e.ctx, strings.ToLower(e.viewer.Email), limit)
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		out = append(out, objectOf(fields, tNote, func(f *cfield) any {
			switch f.name {
			case "subject":
				return n.Subject
			case "message":
				return n.Message
			case "sender":
				return n.Sender
			case "createdAt":
				return store.FormatDateTime(n.Created)
			case "entity":
				if n.EntityID == "" {
					return nil
				}
				return entityRef(e.sub(f, tEntityRef), n.EntityID, n.EntityType)
			}
			return nil
		}))
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
