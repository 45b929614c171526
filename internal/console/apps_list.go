package console

import (
	"net/http"

	"github.com/appkitgo/appkit/internal/apps"
)

// appsView is the apps screen's content.
type appsView struct {
	Apps []*apps.App
}

func (c *Console) appsPage(w http.ResponseWriter, r *http.Request) error {
	return c.appsList(w, r, http.StatusOK, layout{})
}

func (c *Console) appsList(w http.ResponseWriter, r *http.Request, status int, l layout) error {
	svc, err := c.service()
	if err != nil {
		return err
	}
	list, err := svc.Registry.Apps(r.Context())
	if err != nil {
		return err
	}
	l.Title, l.Nav = "Apps", "apps"
	return appsScreen.show(c, w, r, status, l, &appsView{Apps: list})
}

func (c *Console) registerApp(w http.ResponseWriter, r *http.Request) error {
	svc, err := c.service()
	if err != nil {
		return err
	}
	f, err := parseAppForm(r.PostForm)
	if fe, ok := formProblems(err); ok {
		return c.appsList(w, r, http.StatusBadRequest, layout{FieldErrors: fe, Form: r.PostForm})
	}
	a, err := svc.Registry.Register(r.Context(), apps.RegisterSpec{URL: f.URL, Adopt: f.Adopt})
	if err != nil {
		return onForm(r.Context(), err, func(status int, msg string) error {
			return c.appsList(w, r, status, layout{FieldErrors: map[string]string{"url": msg}, Form: r.PostForm})
		})
	}
	return redirect(w, r, "/apps/"+a.ID)
}
