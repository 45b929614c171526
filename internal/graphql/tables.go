package graphql

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/appkitgo/appkit/internal/store"
)

// The API keeps what the store has no place for in tables of its own,
// created at the first request that needs them (each keyed by the entity's
// platform/id and removed with the entity by the delete action):
//
//	graphql_comments       addComment: id, entity_id, author (e-mail), content (markdown), created
//	graphql_files          addFileFromUrl, attachPdfUsingTemplate: id, entity_id, name, content_type, size, data, created
//	graphql_assignments    assignToMe: entity_id, email, created
//	graphql_creators       who created an entity through create: entity_id, email
//	graphql_notifications  notify...: id, recipient, sender, subject, message, entity_id, entity_type, created
//
// Times are Unix milliseconds.
const (
	commentsTable      = "graphql_comments"
	filesTable         = "graphql_files"
	assignmentsTable   = "graphql_assignments"
	creatorsTable      = "graphql_creators"
	notificationsTable = "graphql_notifications"
)

func tableDDL(d store.Dialect) []string {
	blob := d.BlobType()
	return []string{
		`CREATE TABLE IF NOT EXISTS graphql_comments (id TEXT PRIMARY KEY, entity_id TEXT NOT NULL, author TEXT NOT NULL, content TEXT NOT NULL, created BIGINT NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS graphql_comments_entity ON graphql_comments (entity_id, created, id)`,
		`CREATE TABLE IF NOT EXISTS graphql_files (id TEXT PRIMARY KEY, entity_id TEXT NOT NULL, name TEXT NOT NULL, content_type TEXT NOT NULL, size BIGINT NOT NULL, data ` + blob + ` NOT NULL, created BIGINT NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS graphql_files_entity ON graphql_files (entity_id, created, id)`,
		`CREATE TABLE IF NOT EXISTS graphql_assignments (entity_id TEXT NOT NULL, email TEXT NOT NULL, created BIGINT NOT NULL, PRIMARY KEY (entity_id, email))`,
		`CREATE TABLE IF NOT EXISTS graphql_creators (entity_id TEXT PRIMARY KEY, email TEXT NOT NULL)`,
		`CREATE TABLE IF NOT EXISTS graphql_notifications (id TEXT PRIMARY KEY, recipient TEXT NOT NULL, sender TEXT NOT NULL, subject TEXT NOT NULL, message TEXT NOT NULL, entity_id TEXT, entity_type TEXT, created BIGINT NOT NULL)`,
		`CREATE INDEX IF NOT EXISTS graphql_notifications_recipient ON graphql_notifications (recipient, created)`,
	}
}

// ensureTables creates the API's own tables once per process.
func (s *Service) ensureTables(ctx context.Context) error {
	s.mu.Lock()
	done := s.tablesDone
	s.mu.Unlock()
	if done {
		return nil
	}
	db := s.cfg.Store.DB()
	for _, q := range tableDDL(s.cfg.Store.Dialect()) {
		if _, err := db.ExecContext(ctx, q); err != nil {
			// Another process may have created it at the same moment.
			if _, err2 := db.ExecContext(ctx, q); err2 != nil {
				return fmt.Errorf("graphql: create tables: %w", err)
			}
		}
	}
	s.mu.Lock()
	s.tablesDone = true
	s.mu.Unlock()
	return nil
}

// seqID is a new row id of the API's tables: a version 7 UUID, increasing
// within the process, so that rows of one millisecond keep their order.
func seqID() string { return uuid.Must(uuid.NewV7()).String() }
