package console

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/apps"
)

// accountFormData is the account form's content.
type accountFormData struct {
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

func (c *Console) accountForm(w http.ResponseWriter, r *http.Request) error {
	return c.showAccountForm(w, r, http.StatusOK, &page{}, r.URL.Query().Get("auth"))
}

func (c *Console) showAccountForm(w http.ResponseWriter, r *http.Request, status int, p *page, authID string) error {
	_, a, err := c.pathApp(r)
	if err != nil {
		return err
	}
	au := findAuth(a.Descriptor, authID)
	if au == nil {
		return noAuth(http.StatusNotFound, authID)
	}
	p.Title, p.Nav, p.Data = "Connect an account to "+a.Name, "apps", &accountFormData{App: a, Auth: au, Auths: a.Descriptor.Authentication, OAuth: isOAuth(au)}
	return c.render(w, r, status, "account", p)
}

// accountFields reads the form's values of an authentication's fields,
// typed as the app declared them; fe gets a message per refused field.
func accountFields(au *protocol.Authentication, form map[string][]string, fe map[string]string) map[string]string {
	given := map[string]string{}
	for _, f := range au.Fields {
		if f.Type == "link" || f.Type == "oauth" {
			continue
		}
		var v string
		if vs := form["f."+f.ID]; len(vs) > 0 {
			v = vs[0]
		}
		if f.Type == "bool" {
			if v == "" {
				v = "false"
			} else {
				v = "true"
			}
		}
		if strings.TrimSpace(v) == "" {
			if !f.Optional {
				fe["f."+f.ID] = "Required."
			}
			continue
		}
		if f.Type == "number" {
			var n json.Number
			if err := json.Unmarshal([]byte(strings.TrimSpace(v)), &n); err != nil {
				fe["f."+f.ID] = "Enter a number."
				continue
			}
		}
		given[f.ID] = v
	}
	return given
}

func (c *Console) createAccount(w http.ResponseWriter, r *http.Request) error {
	svc, a, err := c.pathApp(r)
	if err != nil {
		return err
	}
	authID := r.PostForm.Get("auth")
	au := findAuth(a.Descriptor, authID)
	if au == nil {
		return noAuth(http.StatusBadRequest, authID)
	}
	fe := map[string]string{}
	given := accountFields(au, r.PostForm, fe)
	// Values sent back to the form: never a password.
	back := map[string][]string{}
	for _, f := range au.Fields {
		if f.Type != "password" {
			back["f."+f.ID] = r.PostForm["f."+f.ID]
		}
	}
	if len(fe) > 0 {
		return c.showAccountForm(w, r, http.StatusBadRequest, &page{FieldErrors: fe, Form: back}, au.ID)
	}
	fields, err := apps.TypedFields(a.Descriptor, au.ID, given)
	if err == nil {
		_, err = svc.Registry.CreateAccount(r.Context(), a.ID, au.ID, fields)
	}
	if err != nil {
		return onForm(r.Context(), err, func(status int, msg string) error {
			return c.showAccountForm(w, r, status, &page{Error: "The account was not saved: " + msg, Form: back}, au.ID)
		})
	}
	return c.showApp(w, r, http.StatusOK, &page{Notice: "The account was validated by the app and saved."})
}

func (c *Console) startOAuth(w http.ResponseWriter, r *http.Request) error {
	svc, err := c.service()
	if err != nil {
		return err
	}
	out, err := svc.OAuthSetup.StartOAuth(r.Context(), r.PathValue("id"), r.PostForm.Get("auth"), "", svc.BaseURLFor(r))
	if err != nil {
		return onForm(r.Context(), err, func(status int, msg string) error {
			return c.showAccountForm(w, r, status, &page{Error: "The OAuth flow did not start: " + msg}, r.PostForm.Get("auth"))
		})
	}
	return redirect(w, r, out.RedirectURI)
}

func (c *Console) deleteAccount(w http.ResponseWriter, r *http.Request) error {
	svc, err := c.service()
	if err != nil {
		return err
	}
	acc, err := svc.Registry.Account(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := svc.Registry.DeleteAccount(r.Context(), acc.ID); err != nil {
		return err
	}
	return redirect(w, r, "/apps/"+acc.AppID)
}
