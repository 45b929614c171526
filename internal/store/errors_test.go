package store

import (
	"errors"
	"fmt"
	"testing"
)

// An error of a stable name matches that name's sentinel through any
// wrapping, and no other.
func TestErrorIsMatchesByName(t *testing.T) {
	t.Parallel()
	err := fmt.Errorf("update: %w", Errorf(NameEntityNotFound, nil, "no entity %s", "x"))
	if !errors.Is(err, ErrEntityNotFound) {
		t.Error("errors.Is(err, ErrEntityNotFound) = false")
	}
	if errors.Is(err, ErrEntityExists) {
		t.Error("an entity-not-found error matches ErrEntityExists")
	}
	if errors.Is(errors.New(NameEntityNotFound), ErrEntityNotFound) {
		t.Error("a plain error with the name's text matches the sentinel")
	}
}
