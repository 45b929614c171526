package store

import (
	"context"
	"fmt"
	"strings"
)

// Data attached to entities: what users add to an entity beside its
// fields (through the GraphQL API): comments, files with their bytes, the
// users assigned to it, the user who created it and notifications about
// it. Each row names its entity by platform/id (entity_id), in tables the
// store's migrations make:
//
//	entity_comments       id, entity_id, author (e-mail), content (markdown), created
//	entity_files          id, entity_id, name, content_type, size, data, created
//	entity_assignees      entity_id, email, created (one row per user)
//	entity_creators       entity_id, email
//	entity_notifications  id, recipient, sender, subject, message, entity_id, entity_type, created
//
// Times are Unix milliseconds; ids are time-ordered UUIDs (NewEntityID),
// so that rows of one millisecond keep their order. The store deletes the
// rows of an entity in the transaction that deletes it, whichever API
// deletes it: Tx.Delete (the command API, GraphQL, a synchronization's
// removals) and DeleteType (a type with its entities).
const (
	commentsTable      = "entity_comments"
	filesTable         = "entity_files"
	assigneesTable     = "entity_assignees"
	creatorsTable      = "entity_creators"
	notificationsTable = "entity_notifications"
)

// attachedTables are the tables of the data attached to entities, each
// with its entity_id column.
var attachedTables = []string{commentsTable, filesTable, assigneesTable, creatorsTable, notificationsTable}

// Comment is a comment on an entity.
type Comment struct {
	// ID is made by AddComment.
	ID       string
	EntityID string
	// Author is the e-mail of the user who wrote it.
	Author string
	// Content is markdown.
	Content string
	// Created is Unix milliseconds.
	Created int64
}

// File is a file attached to an entity.
type File struct {
	// ID is made by AttachFile.
	ID          string
	EntityID    string
	Name        string
	ContentType string
	Size        int64
	// Created is Unix milliseconds.
	Created int64
	// Data is the file's bytes (nil in a list of files).
	Data []byte
}

// Notification is a message to a user about an entity.
type Notification struct {
	// ID is made by AddNotification.
	ID string
	// Recipient and Sender are e-mails.
	Recipient, Sender string
	Subject, Message  string
	// EntityID and EntityType name the entity ("" for none); EntityType
	// is the name the sender saw it under.
	EntityID, EntityType string
	// Created is Unix milliseconds.
	Created int64
}

// AddComment adds a comment (its ID made here).
func (t *Tx) AddComment(c Comment) error {
	_, err := t.exec("INSERT INTO "+commentsTable+" (id, entity_id, author, content, created) VALUES (?, ?, ?, ?, ?)",
		NewEntityID(), c.EntityID, c.Author, c.Content, c.Created)
	return err
}

// AttachFile attaches a file (its ID made here; Size is len(f.Data)).
func (t *Tx) AttachFile(f File) error {
	_, err := t.exec("INSERT INTO "+filesTable+" (id, entity_id, name, content_type, size, data, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
		NewEntityID(), f.EntityID, f.Name, f.ContentType, int64(len(f.Data)), f.Data, f.Created)
	return err
}

// Assign adds email to the entity's assignees; an assignee stays as
// assigned first.
func (t *Tx) Assign(entityID, email string, created int64) error {
	_, err := t.exec("INSERT INTO "+assigneesTable+" (entity_id, email, created) VALUES (?, ?, ?) ON CONFLICT DO NOTHING", entityID, email, created)
	return err
}

// SetCreator records email as the user who created the entity.
func (t *Tx) SetCreator(entityID, email string) error {
	_, err := t.exec("INSERT INTO "+creatorsTable+" (entity_id, email) VALUES (?, ?)", entityID, email)
	return err
}

// AddNotification stores a notification (its ID made here).
func (t *Tx) AddNotification(n Notification) error {
	_, err := t.exec("INSERT INTO "+notificationsTable+" (id, recipient, sender, subject, message, entity_id, entity_type, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		NewEntityID(), n.Recipient, n.Sender, n.Subject, n.Message, nullString(n.EntityID), nullString(n.EntityType), n.Created)
	return err
}

// nullString is s, or NULL for "".
func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// deleteAttached deletes the rows attached to the entities whose id is
// cond ("= ?" with the id, or "IN (<sub-query>)").
func (t *Tx) deleteAttached(cond string, args ...any) error {
	for _, table := range attachedTables {
		if _, err := t.exec("DELETE FROM "+table+" WHERE entity_id "+cond, args...); err != nil {
			return err
		}
	}
	return nil
}

// Attached reads the data attached to entities, through the store's
// database or a write transaction (which sees its own writes).
type Attached struct {
	q Querier
	d Dialect
}

// Attached reads the data attached to entities outside a transaction.
func (s *Store) Attached() Attached { return Attached{q: s.db, d: s.dialect} }

// Attached reads the data attached to entities in the transaction.
func (t *Tx) Attached() Attached { return Attached{q: t.tx, d: t.s.dialect} }

// attachedChunk bounds the entity ids of one query.
const attachedChunk = 500

// each runs query (whose condition ends with "entity_id IN ") on the ids,
// in chunks, and calls scan for each row.
func (a Attached) each(ctx context.Context, query, tail string, ids []string, scan func(scan func(...any) error) error) error {
	for i := 0; i < len(ids); i += attachedChunk {
		chunk := ids[i:min(i+attachedChunk, len(ids))]
		args := make([]any, len(chunk))
		for j, s := range chunk {
			args[j] = s
		}
		q := query + "(?" + strings.Repeat(", ?", len(chunk)-1) + ")" + tail
		if err := a.rows(ctx, q, args, scan); err != nil {
			return err
		}
	}
	return nil
}

// rows runs q and calls scan for each row.
func (a Attached) rows(ctx context.Context, q string, args []any, scan func(scan func(...any) error) error) error {
	rows, err := a.q.QueryContext(ctx, a.d.Rebind(q), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Comments calls fn with the comments of the entities, each entity's in
// the order they were written.
func (a Attached) Comments(ctx context.Context, entityIDs []string, fn func(Comment) error) error {
	err := a.each(ctx, "SELECT id, entity_id, author, content, created FROM "+commentsTable+" WHERE entity_id IN ", " ORDER BY created, id", entityIDs,
		func(scan func(...any) error) error {
			var c Comment
			if err := scan(&c.ID, &c.EntityID, &c.Author, &c.Content, &c.Created); err != nil {
				return err
			}
			return fn(c)
		})
	if err != nil {
		return fmt.Errorf("store: read comments: %w", err)
	}
	return nil
}

// Files calls fn with the files of the entities (without their bytes),
// each entity's in the order they were attached.
func (a Attached) Files(ctx context.Context, entityIDs []string, fn func(File) error) error {
	err := a.each(ctx, "SELECT id, entity_id, name, content_type, size, created FROM "+filesTable+" WHERE entity_id IN ", " ORDER BY created, id", entityIDs,
		func(scan func(...any) error) error {
			var f File
			if err := scan(&f.ID, &f.EntityID, &f.Name, &f.ContentType, &f.Size, &f.Created); err != nil {
				return err
			}
			return fn(f)
		})
	if err != nil {
		return fmt.Errorf("store: read files: %w", err)
	}
	return nil
}

// File returns the file whose id is id, with its bytes; found is false
// when there is none.
func (a Attached) File(ctx context.Context, id string) (f File, found bool, err error) {
	err = a.rows(ctx, "SELECT id, entity_id, name, content_type, size, created, data FROM "+filesTable+" WHERE id = ?", []any{id},
		func(scan func(...any) error) error {
			found = true
			return scan(&f.ID, &f.EntityID, &f.Name, &f.ContentType, &f.Size, &f.Created, &f.Data)
		})
	if err != nil {
		return File{}, false, fmt.Errorf("store: read a file: %w", err)
	}
	return f, found, nil
}

// Assignees calls fn with the assignees (e-mails) of the entities, each
// entity's in the order they were assigned.
func (a Attached) Assignees(ctx context.Context, entityIDs []string, fn func(entityID, email string) error) error {
	err := a.each(ctx, "SELECT entity_id, email FROM "+assigneesTable+" WHERE entity_id IN ", " ORDER BY created, email", entityIDs,
		func(scan func(...any) error) error {
			var id, email string
			if err := scan(&id, &email); err != nil {
				return err
			}
			return fn(id, email)
		})
	if err != nil {
		return fmt.Errorf("store: read assignees: %w", err)
	}
	return nil
}

// Creator returns the e-mail of the user who created the entity ("" when
// none was recorded).
func (a Attached) Creator(ctx context.Context, entityID string) (string, error) {
	var email string
	err := a.rows(ctx, "SELECT email FROM "+creatorsTable+" WHERE entity_id = ?", []any{entityID},
		func(scan func(...any) error) error { return scan(&email) })
	if err != nil {
		return "", fmt.Errorf("store: read the creator: %w", err)
	}
	return email, nil
}

// Notifications returns the latest notifications of recipient, newest
// first, at most limit.
func (a Attached) Notifications(ctx context.Context, recipient string, limit int64) ([]Notification, error) {
	out := []Notification{}
	err := a.rows(ctx, "SELECT id, recipient, sender, subject, message, entity_id, entity_type, created FROM "+notificationsTable+
		" WHERE recipient = ? ORDER BY created DESC, id DESC LIMIT ?", []any{recipient, limit},
		func(scan func(...any) error) error {
			var n Notification
			var id, typ *string
			if err := scan(&n.ID, &n.Recipient, &n.Sender, &n.Subject, &n.Message, &id, &typ, &n.Created); err != nil {
				return err
			}
			if id != nil {
				n.EntityID = *id
			}
			if typ != nil {
				n.EntityType = *typ
			}
			out = append(out, n)
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("store: read notifications: %w", err)
	}
	return out, nil
}
