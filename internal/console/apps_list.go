package console

import (
	"net/http"
	"strings"

	"github.com/appkitgo/appkit/internal/apps"
)

// appsData is the apps screen's content.
type appsData struct {
	Apps []*apps.App
}

func (c *Console) appsPage(w http.ResponseWriter, r *http.Request) error {
	return c.appsList(w, r, http.StatusOK, &page{})
}

func (c *Console) appsList(w http.ResponseWriter, r *http.Request, status int, p *page) error {
	svc, err := c.service()
	if err != nil {
		return err
	}
	list, err := svc.Registry.Apps(r.Context())
	if err != nil {
		return err
	}
	p.Title, p.Nav, p.Data = "Apps", "apps", &appsData{Apps: list}
	return c.render(w, r, status, "apps", p)
}

func (c *Console) registerApp(w http.ResponseWriter, r *http.Request) error {
	svc, err := c.service()
	if err != nil {
		return err
	}
	raw := strings.TrimSpace(r.PostForm.Get("url"))
	if _, err := apps.NormalizeURL(raw); raw == "" || err != nil {
		return c.appsList(w, r, http.StatusBadRequest, &page{FieldErrors: map[string]string{"url": "Enter the app's address: http:// or https:// with a host, no query."}, Form: r.PostForm})
	}
	a, err := svc.Registry.RegisterApp(r.Context(), raw)
	if err != nil {
		return onForm(r.Context(), err, func(status int, msg string) error {
			return c.appsList(w, r, status, &page{FieldErrors: map[string]string{"url": msg}, Form: r.PostForm})
		})
	}
	return redirect(w, r, "/apps/"+a.ID)
}
