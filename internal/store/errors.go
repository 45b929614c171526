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

// Stable error names (an *Error's Name). The package documentation of
// internal/commands lists them with their meaning.
const (
	NameTypeNotFound       = "entity.error/schema-type-not-found"
	NameFieldNotFound      = "entity.error/field-not-found"
	NameInvalidValue       = "entity.error/invalid-value"
	NameEntityNotFound     = "entity.error/entity-not-found"
	NameRequiredMissing    = "entity.error/required-value-missing"
	NameReadonlyField      = "entity.error/readonly-field"
	NameEntityExists       = "entity.error/entity-exists"
	NameTypeExists         = "schema.error/type-exists"
	NameFieldExists        = "schema.error/field-exists"
	NameInvalidName        = "schema.error/invalid-name"
	NameInvalidSchema      = "schema.error/invalid-command"
	NameTypeHasEntities    = "schema.error/type-has-entities"
	NameTypeHasRelated     = "schema.error/type-has-related-fields"
	NameFieldHasValues     = "schema.error/field-has-values"
	NameBuiltinProtected   = "schema.error/builtin-protected"
	NameQueryInvalid       = "query.error/invalid"
	NameUnknownParam       = "query.error/unknown-param"
	NameInvalidParam       = "query.error/invalid-param"
	NameInternal           = "platform.error/internal"
	NameConcurrentSchemaOp = "schema.error/concurrent-change"
	// NameTooManyFields: a field would take a type past the columns one
	// table may hold (see MaxTypeColumns).
	NameTooManyFields = "schema.error/too-many-fields"
)

// Sentinel errors, one per stable name: errors.Is(err, ErrEntityNotFound)
// reports an *Error of that name anywhere in err's chain (see [Error.Is]).
var (
	ErrTypeNotFound       = &Error{Name: NameTypeNotFound}
	ErrFieldNotFound      = &Error{Name: NameFieldNotFound}
	ErrInvalidValue       = &Error{Name: NameInvalidValue}
	ErrEntityNotFound     = &Error{Name: NameEntityNotFound}
	ErrRequiredMissing    = &Error{Name: NameRequiredMissing}
	ErrReadonlyField      = &Error{Name: NameReadonlyField}
	ErrEntityExists       = &Error{Name: NameEntityExists}
	ErrTypeExists         = &Error{Name: NameTypeExists}
	ErrFieldExists        = &Error{Name: NameFieldExists}
	ErrInvalidName        = &Error{Name: NameInvalidName}
	ErrInvalidSchema      = &Error{Name: NameInvalidSchema}
	ErrTypeHasEntities    = &Error{Name: NameTypeHasEntities}
	ErrTypeHasRelated     = &Error{Name: NameTypeHasRelated}
	ErrFieldHasValues     = &Error{Name: NameFieldHasValues}
	ErrBuiltinProtected   = &Error{Name: NameBuiltinProtected}
	ErrQueryInvalid       = &Error{Name: NameQueryInvalid}
	ErrUnknownParam       = &Error{Name: NameUnknownParam}
	ErrInvalidParam       = &Error{Name: NameInvalidParam}
	ErrInternal           = &Error{Name: NameInternal}
	ErrConcurrentSchemaOp = &Error{Name: NameConcurrentSchemaOp}
	ErrTooManyFields      = &Error{Name: NameTooManyFields}
)

// Is reports whether target is an *Error of the same stable name, so that
// the sentinels above match every error of their name.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Name == e.Name
}

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
