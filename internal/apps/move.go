package apps

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/appkitgo/appkit/internal/syncer"
)

// RegisterMoving registers the app at spec.URL by its id rather than its
// address: when an app with the same id (the same space) is registered at
// another address and none is at spec.URL, that registration moves to
// spec.URL (its accounts, syncs, runs and data stay its own) before the
// app is registered there as Register does (its descriptor read again).
// What "appkit dev" uses: its app listens on a new port each session. An
// app whose id is registered nowhere is registered as new.
func (s *Registry) RegisterMoving(ctx context.Context, spec RegisterSpec) (*App, error) {
	u, err := NormalizeURL(spec.URL)
	if err != nil {
		return nil, err
	}
	// A descriptor that cannot be read moves nothing: Register reads it
	// again and says why.
	if desc, err := syncer.Describe(ctx, s.engineOptions(u)); err == nil {
		if err := s.moveApp(ctx, u, desc.Space); err != nil {
			return nil, fmt.Errorf("register the app: move its registration: %w", err)
		}
	}
	spec.URL = u
	return s.Register(ctx, spec)
}

// moveApp moves the registration of the app whose space is space to the
// address u, unless an app is registered at u already.
func (s *Registry) moveApp(ctx context.Context, u, space string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		if n, err := s.on(tx).countAppsAtURL(ctx, u); err != nil || n > 0 {
			return err
		}
		moved, err := s.on(tx).setAppURLOfSpace(ctx, u, space)
		if err != nil {
			return err
		}
		if moved > 0 {
			s.log.Info().Str("url", u).Str("space", space).Msg("apps: an app's registration moved to a new address")
		}
		return nil
	})
}
