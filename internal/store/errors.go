package store

import (
	"errors"
	"fmt"
)

// Error is a failure with a stable name that the command API reports as
// {"success": false, "result": {"name", "message", "data"}}. Name never changes
// between releases; Message is for humans; Data carries details (never secrets).
type Error struct {
	Name    string
	Message string
	Data    map[string]any
}

// Error implements error.
func (e *Error) Error() string { return e.Name + ": " + e.Message }

// Stable error names. The package documentation of internal/commands lists them
// with their meaning.
const (
	ErrTypeNotFound       = "entity.error/schema-type-not-found"
	ErrFieldNotFound      = "entity.error/field-not-found"
	ErrInvalidValue       = "entity.error/invalid-value"
	ErrEntityNotFound     = "entity.error/entity-not-found"
	ErrRequiredMissing    = "entity.error/required-value-missing"
	ErrReadonlyField      = "entity.error/readonly-field"
	ErrEntityExists       = "entity.error/entity-exists"
	ErrTypeExists         = "schema.error/type-exists"
	ErrFieldExists        = "schema.error/field-exists"
	ErrInvalidName        = "schema.error/invalid-name"
	ErrInvalidSchema      = "schema.error/invalid-command"
	ErrTypeHasEntities    = "schema.error/type-has-entities"
	ErrTypeHasRelated     = "schema.error/type-has-related-fields"
	ErrFieldHasValues     = "schema.error/field-has-values"
	ErrBuiltinProtected   = "schema.error/builtin-protected"
	ErrQueryInvalid       = "query.error/invalid"
	ErrUnknownParam       = "query.error/unknown-param"
	ErrInvalidParam       = "query.error/invalid-param"
	ErrInternal           = "platform.error/internal"
	ErrConcurrentSchemaOp = "schema.error/concurrent-change"
	// ErrTooManyFields: a field would take a type past the columns one
	// table may hold (see MaxTypeColumns).
	ErrTooManyFields = "schema.error/too-many-fields"
)

// Errorf returns an *Error with the given stable name and a formatted message.
func Errorf(name string, data map[string]any, format string, args ...any) *Error {
	if data == nil {
		data = map[string]any{}
	}
	return &Error{Name: name, Message: fmt.Sprintf(format, args...), Data: data}
}

// AsError returns the *Error in err's chain, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}
