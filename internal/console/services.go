package console

import (
	"context"
	"net/http"

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

// pathApp returns the apps service and the app the request's {id} names.
func (c *Console) pathApp(r *http.Request) (*apps.Service, *apps.App, error) {
	svc, err := c.service()
	if err != nil {
		return nil, nil, err
	}
	a, err := svc.Registry.App(r.Context(), r.PathValue("id"))
	if err != nil {
		return nil, nil, err
	}
	return svc, a, nil
}

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
