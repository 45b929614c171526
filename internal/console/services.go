package console

import (
	"context"
	"net/http"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/apps"
)

// The errors of the apps service are returned as they are, not wrapped:
// their message is what the page shows (apps.HTTPStatus words it).

// errNoApps answers an app screen on a host without the apps service.
var errNoApps = &pageError{Status: http.StatusNotFound, Title: "No apps service", Message: "This host runs without the apps service."}

// service returns the apps service, or errNoApps.
func (c *Console) service() (*apps.Service, error) {
	if c.cfg.Apps == nil {
		return nil, errNoApps
	}
	return c.cfg.Apps, nil
}

// lookup finds an object of the apps service by its id.
type lookup[T any] func(ctx context.Context, id string) (T, error)

// byPath returns the apps service and what the lookup find picks from it
// gives for the request's {id} (appOf, accountOf, configOf, settingOf,
// syncOf, runOf).
func byPath[T any](c *Console, r *http.Request, find func(*apps.Service) lookup[T]) (*apps.Service, T, error) {
	var none T
	svc, err := c.service()
	if err != nil {
		return nil, none, err
	}
	v, err := find(svc)(r.Context(), r.PathValue("id"))
	if err != nil {
		return nil, none, err
	}
	return svc, v, nil
}

// The lookups by id of byPath.
func appOf(s *apps.Service) lookup[*apps.App]                   { return s.Registry.App }
func accountOf(s *apps.Service) lookup[*apps.Account]           { return s.Registry.Account }
func configOf(s *apps.Service) lookup[*protocol.ConfigResponse] { return s.Registry.Config }
func settingOf(s *apps.Service) lookup[*apps.AccountSetting]    { return s.Registry.Setting }
func syncOf(s *apps.Service) lookup[*apps.Sync]                 { return s.SyncService.Sync }
func runOf(s *apps.Service) lookup[*apps.Run]                   { return s.SyncService.Run }

// syncApp returns the sync id names and its app.
func syncApp(ctx context.Context, svc *apps.Service, id string) (*apps.Sync, *apps.App, error) {
	sy, err := svc.SyncService.Sync(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	a, err := svc.Registry.App(ctx, sy.AppID)
	if err != nil {
		return nil, nil, err
	}
	return sy, a, nil
}
