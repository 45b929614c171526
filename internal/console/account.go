package console

import (
	"fmt"
	"net/http"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/apps"
)

// accountView is the account form's content.
type accountView struct {
	App  *apps.App
	Auth *protocol.Authentication
	// Auths are the app's authentications (to pick another).
	Auths []protocol.Authentication
	// OAuth is true for an OAuth authentication: a connect button.
	OAuth bool
}

func isOAuth(au *protocol.Authentication) bool {
	if au.ID == protocol.AuthOAuth1 || au.ID == protocol.AuthOAuth2 {
		return true
	}
	for _, f := range au.Fields {
		if f.Type == "oauth" {
			return true
		}
	}
	return false
}

func findAuth(d *protocol.Descriptor, id string) *protocol.Authentication {
	for i := range d.Authentication {
		if d.Authentication[i].ID == id || (id == "" && i == 0) {
			return &d.Authentication[i]
		}
	}
	return nil
}

// noAuth refuses an authentication the app does not have.
func noAuth(status int, id string) error {
	return &pageError{Status: status, Title: "No such authentication", Message: fmt.Sprintf("The app has no authentication %q.", id)}
}

func (c *Console) newAccountPage(w http.ResponseWriter, r *http.Request) error {
	return c.showAccountForm(w, r, http.StatusOK, layout{}, r.URL.Query().Get("auth"))
}

func (c *Console) showAccountForm(w http.ResponseWriter, r *http.Request, status int, l layout, authID string) error {
	_, a, err := byPath(c, r, appOf)
	if err != nil {
		return err
	}
	au := findAuth(a.Descriptor, authID)
	if au == nil {
		return noAuth(http.StatusNotFound, authID)
	}
	l.Title, l.Nav = "Connect an account to "+a.Name, "apps"
	return accountScreen.show(c, w, r, status, l, &accountView{App: a, Auth: au, Auths: a.Descriptor.Authentication, OAuth: isOAuth(au)})
}

func (c *Console) createAccount(w http.ResponseWriter, r *http.Request) error {
	svc, a, err := byPath(c, r, appOf)
	if err != nil {
		return err
	}
	f, err := parseAccountForm(r.PostForm, a.Descriptor)
	if fe, ok := formProblems(err); ok {
		return c.showAccountForm(w, r, http.StatusBadRequest, layout{FieldErrors: fe, Form: f.Back}, f.Auth.ID)
	}
	if err != nil {
		return err
	}
	if _, err := svc.Registry.CreateAccount(r.Context(), a.ID, f.Auth.ID, f.Fields); err != nil {
		return onForm(r.Context(), err, func(status int, msg string) error {
			return c.showAccountForm(w, r, status, layout{Error: "The account was not saved: " + msg, Form: f.Back}, f.Auth.ID)
		})
	}
	return c.showApp(w, r, http.StatusOK, layout{Notice: "The account was validated by the app and saved."})
}

func (c *Console) startOAuth(w http.ResponseWriter, r *http.Request) error {
	svc, err := c.service()
	if err != nil {
		return err
	}
	f := parseOAuthForm(r.PostForm)
	out, err := svc.OAuthSetup.StartOAuth(r.Context(), r.PathValue("id"), f.Auth, "", svc.BaseURLFor(r))
	if err != nil {
		return onForm(r.Context(), err, func(status int, msg string) error {
			return c.showAccountForm(w, r, status, layout{Error: "The OAuth flow did not start: " + msg}, f.Auth)
		})
	}
	return redirect(w, r, out.RedirectURI)
}

func (c *Console) deleteAccount(w http.ResponseWriter, r *http.Request) error {
	svc, acc, err := byPath(c, r, accountOf)
	if err != nil {
		return err
	}
	if err := svc.Registry.DeleteAccount(r.Context(), acc.ID); err != nil {
		return err
	}
	return redirect(w, r, "/apps/"+acc.AppID)
}
