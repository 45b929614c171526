package host

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/appkitgo/appkit/internal/auth"
	"github.com/appkitgo/appkit/internal/graphql"
	"github.com/appkitgo/appkit/internal/httpjson"
)

// GraphQL routes:
//
//	POST /api/graphql/space/<space>   {query, variables, operationName} → {errors?, data}   (Authorization: Token <token>, or the IDE's session, below)
//	GET  /api/graphql/space/<space>   the GraphiQL page of the space (no data; the page sends the token or the session)
//	GET  /api/graphql                 {"spaces": [{"space", "endpoint"}]}                       (Authorization: Token <token>)
//	GET  /api/graphql/ide/<file>      GraphiQL's embedded files
//	GET  /api/graphql/files/<id>      a file attached by addFileFromUrl or attachPdfUsingTemplate (Authorization: Token <token>)
//
// addFileFromUrl refuses loopback, private and other non-public addresses;
// Config.GraphQLAllowPrivateURLs lets it reach them (a host on a private
// network that trusts its users; appkit host sets it from the environment
// variable APPKIT_GRAPHQL_ALLOW_PRIVATE_URLS=1).
//
// POST goes through the same token check, rate limits and body limit as
// the command API. Without an Authorization header, POST accepts the
// console's session cookie instead when the request carries
// "X-Appkit-IDE: 1" (which a cross-site form or simple request cannot send)
// and no foreign Origin (403): the IDE page, opened from the console, runs
// as the signed-in user, with that user's rate limit. A GraphQL failure (a bad query, a failed action) answers
// 200 with the standard errors array; a request that is not GraphQL at all
// answers {message}: 400 for a body that is not JSON, 413 over the size
// limit, 404 for a space without databases.
const graphqlPrefix = "/api/graphql"

// mountGraphQL mounts the per-space GraphQL API.
func (h *Host) mountGraphQL(mux *http.ServeMux) error {
	svc, err := graphql.New(graphql.Config{
		Store:            h.cfg.Store,
		MaxBody:          min(h.cfg.MaxBody, graphql.DefaultMaxBody),
		FilesPath:        graphqlPrefix + "/files/",
		AllowPrivateURLs: h.cfg.GraphQLAllowPrivateURLs,
		OnError: func(ctx context.Context, err error) {
			h.log.Error().Err(err).Msg("graphql request failed internally")
		},
	})
	if err != nil {
		return err
	}
	api := h.withIDESession(h.admitQueries(h.limitBody(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.serveGraphQL(svc, w, r) }))))
	mux.Handle(graphqlPrefix+"/space/{space}", methods(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			space := r.PathValue("space")
			query, err := svc.OpeningQuery(r.Context(), space)
			if err != nil && !errors.Is(err, graphql.ErrNoSpace) {
				h.logError(r, err)
			}
			graphql.ServeIDE(w, r, space, graphqlPrefix+"/space/"+url.PathEscape(space), graphqlPrefix+"/ide", query)
			return
		}
		api.ServeHTTP(w, r)
	}), http.MethodGet, http.MethodPost))
	mux.Handle(graphqlPrefix+"/ide/{file}", methods(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		graphql.ServeAsset(w, r, r.PathValue("file"))
	}), http.MethodGet))
	mux.Handle(graphqlPrefix+"/files/{id}", methods(h.withToken(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		svc.ServeFile(w, r, r.PathValue("id"))
	})), http.MethodGet))
	mux.Handle(graphqlPrefix, methods(h.withToken(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.listGraphQL(svc, w, r) })), http.MethodGet))
	return nil
}

func (h *Host) serveGraphQL(svc *graphql.Service, w http.ResponseWriter, r *http.Request) {
	u, _ := userFrom(r.Context())
	req, err := svc.DecodeRequest(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if graphql.IsTooLarge(err) || errors.As(err, &mbe) {
			httpjson.Message(w, http.StatusRequestEntityTooLarge, err.Error())
			return
		}
		httpjson.Message(w, http.StatusBadRequest, err.Error())
		return
	}
	resp, err := svc.Execute(r.Context(), r.PathValue("space"), graphql.Viewer{ID: u.ID, Email: u.Email}, req)
	if h.failed(w, r, err, graphql.ErrNoSpace, http.StatusNotFound, "no space "+r.PathValue("space")+": GET /api/graphql lists the spaces") {
		return
	}
	body, err := resp.MarshalJSON()
	if err != nil {
		h.internalError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(body)
}

func (h *Host) listGraphQL(svc *graphql.Service, w http.ResponseWriter, r *http.Request) {
	spaces, err := svc.Spaces(r.Context())
	if err != nil {
		h.internalError(w, r, err)
		return
	}
	list := make([]map[string]string, 0, len(spaces))
	for _, s := range spaces {
		list = append(list, map[string]string{"space": s, "endpoint": graphqlPrefix + "/space/" + url.PathEscape(s)})
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"spaces": list})
}

// withIDESession is withToken, except that a request without an
// Authorization header that carries graphql.IDEHeader ("1") is
// authenticated by the session cookie: 403 for a foreign Origin (the
// console's sameOrigin check), 401 without a valid session. The user's
// requests share one rate-limit bucket, as a token's do.
func (h *Host) withIDESession(next http.Handler) http.Handler {
	token := h.withToken(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" || r.Header.Get(graphql.IDEHeader) != "1" {
			token.ServeHTTP(w, r)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !sameOriginAs(o, r) {
			httpjson.Message(w, http.StatusForbidden, "cross-origin request refused")
			return
		}
		c, err := r.Cookie(SessionCookie)
		if err != nil {
			unauthorized(w, "sign in to the console first, or send \"Authorization: Token <API token>\"")
			return
		}
		u, err := h.auth.SessionUser(r.Context(), c.Value)
		if errors.Is(err, auth.ErrUnauthenticated) {
			unauthorized(w, "the session has expired or is invalid: sign in again")
			return
		}
		if err != nil {
			h.internalError(w, r, err)
			return
		}
		info(r.Context()).userID = u.ID
		if h.rateLimited(w, "session:"+u.ID, "user session") {
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, u)))
	})
}
