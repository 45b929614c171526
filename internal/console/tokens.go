package console

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/appkitgo/appkit/internal/auth"
)

// tokensData is the API tokens screen's content.
type tokensData struct {
	Tokens []auth.Token
	// Created is the token just created, with its value (shown once).
	Created *auth.Token
	Value   string
}

func (c *Console) tokens(w http.ResponseWriter, r *http.Request) error {
	return c.tokensPage(w, r, http.StatusOK, &page{}, &tokensData{})
}

func (c *Console) tokensPage(w http.ResponseWriter, r *http.Request, status int, p *page, d *tokensData) error {
	list, err := c.cfg.Auth.ListTokens(r.Context(), sessionFrom(r.Context()).user.ID)
	if err != nil {
		return fmt.Errorf("console: tokens: %w", err)
	}
	d.Tokens = list
	p.Title, p.Nav, p.Data = "API tokens", "tokens", d
	return c.render(w, r, status, "tokens", p)
}

func (c *Console) createToken(w http.ResponseWriter, r *http.Request) error {
	name := strings.TrimSpace(r.PostForm.Get("name"))
	t, value, err := c.cfg.Auth.CreateToken(r.Context(), sessionFrom(r.Context()).user.ID, name)
	if errors.Is(err, auth.ErrInvalid) {
		return c.tokensPage(w, r, http.StatusBadRequest, &page{FieldErrors: map[string]string{"name": err.Error()}, Form: r.PostForm}, &tokensData{})
	}
	if err != nil {
		return fmt.Errorf("console: create token: %w", err)
	}
	return c.tokensPage(w, r, http.StatusOK, &page{Notice: "Token created: copy its value now, it is not shown again."}, &tokensData{Created: &t, Value: value})
}

func (c *Console) revokeToken(w http.ResponseWriter, r *http.Request) error {
	err := c.cfg.Auth.DeleteToken(r.Context(), sessionFrom(r.Context()).user.ID, r.PathValue("id"))
	if errors.Is(err, auth.ErrNotFound) {
		return c.tokensPage(w, r, http.StatusNotFound, &page{Error: "No such token (already revoked?)."}, &tokensData{})
	}
	if err != nil {
		return fmt.Errorf("console: revoke token: %w", err)
	}
	return redirect(w, r, "/tokens")
}
