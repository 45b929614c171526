package apps

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/appkitgo/appkit/internal/store"
)

// A space of the store is taken when a sync owns it (apps_syncs.space),
// when it is another app's own space (apps_apps.space), or when the store
// holds data there that no sync owns: synchronized types ("<space>/task")
// or the engine's state ("app:<space>"), left by `appkit sync`,
// `appkit host --demo`, or a sync or app removed since (their data stays).
// A sync or app given such a space would inherit the engine's state and
// its first full run would remove what the space held, so taking it over
// needs the caller to ask for it: adopt.

// engineStateKey is the key of the engine's state of a space in the store
// (internal/syncer keeps a space's state, its position and mapping, there).
func engineStateKey(space string) string { return "app:" + space }

// maxListedTypes bounds the types a conflict's message names.
const maxListedTypes = 5

// heldInStore says what the store holds in space ("" when nothing): its
// synchronized types and whether the engine keeps state for it. It runs a
// store transaction of its own, never inside one of the service's (an
// in-memory SQLite database has one connection).
func (s *core) heldInStore(ctx context.Context, space string) (string, error) {
	var types []string
	var state bool
	err := s.st.Write(ctx, func(tx *store.Tx) error {
		for _, name := range tx.Catalog().TypeNames() {
			if strings.HasPrefix(name, space+"/") {
				types = append(types, name)
			}
		}
		b, err := tx.SyncState(engineStateKey(space))
		state = b != nil
		return err
	})
	if err != nil {
		return "", fmt.Errorf("read what the store holds in the space %q: %w", space, err)
	}
	var parts []string
	if len(types) > 0 {
		list := strings.Join(types[:min(len(types), maxListedTypes)], ", ")
		if len(types) > maxListedTypes {
			list += fmt.Sprintf(" and %d more", len(types)-maxListedTypes)
		}
		parts = append(parts, "the types "+list)
	}
	if state {
		parts = append(parts, "the sync engine's state")
	}
	return strings.Join(parts, " and "), nil
}

// unownedSpace is the refusal of a space whose data no sync owns, unless
// the caller adopts it.
func unownedSpace(space, held, adopt string) error {
	return fmt.Errorf("%w: the space %q holds data that no sync of this host owns (%s), left by `appkit sync`, `appkit host --demo` "+
		"or a sync or app removed since; %s to take it over (the engine's state there is continued and a full run removes what the app "+
		"does not deliver), or use another space", ErrConflict, space, held, adopt)
}

// Adopting hints of the refusals.
const (
	adoptSync = `create the sync with "adopt": true`
	adoptApp  = `register the app with "adopt": true (in the console, "Take over data left in its space")`
)

// spaceOwner says who in the service's tables owns space, other than the
// app appID ("" when none): a sync (of any app, appID's included) or
// another app, whose own space it is.
func (s *core) spaceOwner(ctx context.Context, db store.DB, space, appID string) (string, error) {
	on := s.on(db)
	syncID, syncApp, err := on.firstSyncOfSpace(ctx, space)
	switch {
	case err == nil && syncApp == appID:
		return fmt.Sprintf("sync %s of this app", syncID), nil
	case err == nil:
		return fmt.Sprintf("sync %s of another app", syncID), nil
	case !errors.Is(err, sql.ErrNoRows):
		return "", err
	}
	url, err := on.firstOtherAppOfSpace(ctx, space, appID)
	switch {
	case err == nil:
		return "the app registered at " + url + ", whose own space it is", nil
	case !errors.Is(err, sql.ErrNoRows):
		return "", err
	}
	return "", nil
}
