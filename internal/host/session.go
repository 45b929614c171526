package host

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/appkitgo/appkit/internal/auth"
	"github.com/appkitgo/appkit/internal/httpjson"
)

// readSmallJSON decodes a small JSON object body into v; an empty body
// leaves v as it is when emptyOK. It answers the error itself and reports
// whether to go on.
func readSmallJSON(w http.ResponseWriter, r *http.Request, v any, emptyOK bool) bool {
	return readJSON(w, r, v, maxSmallBody, emptyOK)
}

// readBody reads a request body of at most limit bytes; it answers the
// error itself and reports whether to go on.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpjson.Message(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", limit))
			return nil, false
		}
		httpjson.Message(w, http.StatusBadRequest, "cannot read the body")
		return nil, false
	}
	return raw, true
}

// readJSON decodes a JSON object body of at most limit bytes into v; an
// empty body leaves v as it is when emptyOK. It answers the error itself
// and reports whether to go on.
func readJSON(w http.ResponseWriter, r *http.Request, v any, limit int64, emptyOK bool) bool {
	raw, ok := readBody(w, r, limit)
	if !ok {
		return false
	}
	if len(raw) == 0 && emptyOK {
		return true
	}
	if err := json.Unmarshal(raw, v); err != nil {
		httpjson.Message(w, http.StatusBadRequest, "the body must be a JSON object: "+jsonProblem(err))
		return false
	}
	return true
}

// jsonProblem describes a decoding error without echoing the input.
func jsonProblem(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Sprintf("syntax error at byte %d", syn.Offset)
	case errors.As(err, &typ):
		if typ.Field != "" {
			return fmt.Sprintf("%q must be a %s", typ.Field, typ.Type)
		}
		return "wrong JSON type"
	}
	return "malformed JSON"
}

type loginBody struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

// login checks {email, password} and sets the session cookie.
func (h *Host) login(w http.ResponseWriter, r *http.Request) {
	if ok, retry := h.logins.Allow(limitKey(clientIP(r))); !ok {
		tooMany(w, retry, "too many sign-in attempts from this address; try again later")
		return
	}
	var body loginBody
	if !readSmallJSON(w, r, &body, false) {
		return
	}
	sid, u, err := h.auth.Login(r.Context(), body.Email, body.Password)
	var throttled *auth.ThrottledError
	switch {
	case errors.As(err, &throttled):
		tooMany(w, throttled.RetryAfter, "too many failed sign-ins for this account; try again later")
		return
	case errors.Is(err, auth.ErrBusy):
		w.Header().Set("Retry-After", "1")
		httpjson.Message(w, http.StatusServiceUnavailable, "too many sign-ins in progress; try again in a moment")
		return
	}
	if h.failed(w, r, err, auth.ErrInvalidCredentials, http.StatusUnauthorized, "invalid e-mail or password") {
		return
	}
	info(r.Context()).userID = u.ID
	http.SetCookie(w, h.auth.SessionCookie(SessionCookie, sid, r.TLS != nil))
	httpjson.Write(w, http.StatusOK, u)
}

// logout ends the session of the cookie, if any, and clears the cookie.
func (h *Host) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(SessionCookie); err == nil {
		if err := h.auth.Logout(r.Context(), c.Value); err != nil {
			h.internalError(w, r, err)
			return
		}
	}
	http.SetCookie(w, h.auth.SessionCookie(SessionCookie, "", r.TLS != nil))
	w.WriteHeader(http.StatusNoContent)
}

// CreatedToken is the answer to POST /api/tokens: the token as listed plus
// its value, shown this once.
type CreatedToken struct {
	auth.Token
	Value string `json:"value"`
}

type tokenBody struct {
	Name string `json:"name"`
}

// tokens lists (GET) or creates (POST) the signed-in user's API tokens.
func (h *Host) tokens(w http.ResponseWriter, r *http.Request) {
	u, _ := userFrom(r.Context())
	if r.Method == http.MethodGet {
		list, err := h.auth.ListTokens(r.Context(), u.ID)
		if err != nil {
			h.internalError(w, r, err)
			return
		}
		httpjson.Write(w, http.StatusOK, list)
		return
	}
	var body tokenBody
	if !readSmallJSON(w, r, &body, true) {
		return
	}
	t, value, err := h.auth.CreateToken(r.Context(), u.ID, body.Name)
	if h.failed(w, r, err, auth.ErrInvalid, http.StatusBadRequest, "") {
		return
	}
	info(r.Context()).tokenID = t.ID
	httpjson.Write(w, http.StatusOK, CreatedToken{Token: t, Value: value})
}

// deleteToken deletes one of the signed-in user's tokens.
func (h *Host) deleteToken(w http.ResponseWriter, r *http.Request) {
	u, _ := userFrom(r.Context())
	err := h.auth.DeleteToken(r.Context(), u.ID, r.PathValue("id"))
	if h.failed(w, r, err, auth.ErrNotFound, http.StatusNotFound, "no such token") {
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
