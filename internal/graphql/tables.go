package graphql

import (
	"github.com/google/uuid"
)

// The API keeps what the store has no place for in tables the store's
// migrations make (each keyed by the entity's platform/id and removed with
// the entity by the delete action):
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

// seqID is a new row id of the API's tables: a version 7 UUID, increasing
// within the process, so that rows of one millisecond keep their order.
func seqID() string { return uuid.Must(uuid.NewV7()).String() }
