package console

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/appkitgo/appkit/internal/auth"
)

// tokensView is the API tokens screen's content.
type tokensView struct {
	Tokens []auth.Token
	// Created is the token just created, with its value (shown once).
	Created *auth.Token
	Value   string
}

func (c *Console) tokens(w http.ResponseWriter, r *http.Request) error {
	return c.tokensPage(w, r, http.StatusOK, layout{}, &tokensView{})
}

func (c *Console) tokensPage(w http.ResponseWriter, r *http.Request, status int, l layout, d *tokensView) error {
	list, err := c.cfg.Auth.ListTokens(r.Context(), sessionFrom(r.Context()).user.ID)
	if err != nil {
		return fmt.Errorf("console: tokens: %w", err)
	}
	d.Tokens = list
	l.Title, l.Nav = "API tokens", "tokens"
	return tokensScreen.show(c, w, r, status, l, d)
}

func (c *Console) createToken(w http.ResponseWriter, r *http.Request) error {
	f := parseTokenForm(r.PostForm)
	t, value, err := c.cfg.Auth.CreateToken(r.Context(), sessionFrom(r.Context()).user.ID, f.Name)
	if errors.Is(err, auth.ErrInvalid) {
		return c.tokensPage(w, r, http.StatusBadRequest, layout{FieldErrors: map[string]string{"name": err.Error()}, Form: r.PostForm}, &tokensView{})
	}
	if err != nil {
		return fmt.Errorf("console: create token: %w", err)
	}
	return c.tokensPage(w, r, http.StatusOK, layout{Notice: "Token created: copy its value now, it is not shown again."}, &tokensView{Created: &t, Value: value})
}

func (c *Console) revokeToken(w http.ResponseWriter, r *http.Request) error {
	err := c.cfg.Auth.DeleteToken(r.Context(), sessionFrom(r.Context()).user.ID, r.PathValue("id"))
	if errors.Is(err, auth.ErrNotFound) {
		return c.tokensPage(w, r, http.StatusNotFound, layout{Error: "No such token (already revoked?)."}, &tokensView{})
	}
	if err != nil {
		return fmt.Errorf("console: revoke token: %w", err)
	}
	return redirect(w, r, "/tokens")
}
