package appkit

import (
	"encoding/json"
	"errors"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v5"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/jsonw"
)

func details(c *echo.Context) *logDetails {
	if d, ok := c.Get(logKey).(*logDetails); ok {
		return d
	}
	return &logDetails{}
}

// noteSecrets records the values of secret account fields so that error
// messages and the log line can mask them. Handlers call it right after
// decoding, before any check that may echo a value; a request's account is
// noted once.
func (s *server) noteSecrets(c *echo.Context, account map[string]any) {
	d := details(c)
	if d.noted {
		return
	}
	d.noted = true
	for k := range s.b.secrets {
		if v, ok := account[k].(string); ok && v != "" {
			d.secrets = append(d.secrets, v)
		}
	}
	for _, k := range []string{"access_token", "refresh_token", "access_secret"} {
		if v, ok := account[k].(string); ok && v != "" {
			d.secrets = append(d.secrets, v)
		}
	}
}

// request builds the common part of a handler's request.
func (s *server) request(c *echo.Context, account map[string]any, types []string, filter map[string]json.RawMessage) (Request, error) {
	s.noteSecrets(c, account)
	f, err := decodeFilters(s.b.filters, filter)
	if err != nil {
		return Request{}, err
	}
	return Request{Account: Account(account), Types: types, Filter: f, app: s.app}, nil
}

func (s *server) descriptor(c *echo.Context) error {
	return writeJSON(c.Response(), http.StatusOK, s.b.descriptor)
}

func (s *server) validate(c *echo.Context) error {
	var in protocol.ValidateRequest
	if err := s.decode(c, &in); err != nil {
		return err
	}
	s.noteSecrets(c, in.Fields)
	au, ok := s.b.auths[in.ID]
	if !ok {
		return InvalidAccount("id: unknown authentication %q", in.ID)
	}
	var res map[string]any
	switch {
	case au.ID == protocol.AuthNone:
		res = map[string]any{"name": s.app.Name}
	case au.OAuth2 != nil:
		out, err := au.OAuth2.Validate(c.Request().Context(), in.Fields)
		if err != nil {
			return oauthValidateFailure(err)
		}
		res = out
	case au.OAuth1 != nil:
		out, err := au.OAuth1.Validate(c.Request().Context(), in.Fields)
		if err != nil {
			return oauthValidateFailure(err)
		}
		res = out
	default:
		v, err := au.Validate(c.Request().Context(), Account(in.Fields))
		if err != nil {
			return asStatus(err, http.StatusUnauthorized)
		}
		if v == nil {
			v = &Validation{}
		}
		res = make(map[string]any, len(v.Fields)+1)
		for k, val := range v.Fields {
			res[k] = val
		}
		res["name"] = v.Name
	}
	if res == nil {
		res = map[string]any{}
	}
	if n, _ := res["name"].(string); n == "" {
		res["name"] = s.app.Name
	}
	return writeJSON(c.Response(), http.StatusOK, res)
}

// asStatus keeps typed errors (an *Error in the chain) and turns anything
// else into an *Error of status.
func asStatus(err error, status int) error {
	var ae *Error
	if errors.As(err, &ae) {
		return err
	}
	return &Error{Status: status, Message: err.Error(), Err: err}
}

func (s *server) logo(c *echo.Context) error {
	switch l := s.app.Logo; {
	case l.svg != nil:
		c.Response().Header().Set("Cache-Control", "public, max-age=3600")
		return c.Blob(http.StatusOK, "image/svg+xml", l.svg)
	case l.url != "":
		return c.Redirect(http.StatusFound, l.url)
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *server) config(c *echo.Context) error {
	var in protocol.ConfigRequest
	if err := s.decode(c, &in); err != nil {
		return err
	}
	s.noteSecrets(c, in.Account)
	return writeJSON(c.Response(), http.StatusOK, s.b.config)
}

// typedRequest is request for an endpoint that refuses undeclared types:
// the account's secrets are noted first, so that the refusal is masked.
func (s *server) typedRequest(c *echo.Context, account map[string]any, types []string, filter map[string]json.RawMessage) (Request, error) {
	s.noteSecrets(c, account)
	for _, t := range types {
		if _, ok := s.b.types[t]; !ok {
			return Request{}, BadRequest("types: unknown type %q", t)
		}
	}
	return s.request(c, account, types, filter)
}

func (s *server) schema(c *echo.Context) error {
	var in protocol.SchemaRequest
	if err := s.decode(c, &in); err != nil {
		return err
	}
	base, err := s.typedRequest(c, in.Account, in.Types, in.Filter)
	if err != nil {
		return err
	}
	out := make(protocol.Schema, len(in.Types))
	for _, id := range in.Types {
		t := s.b.types[id]
		fields := t.fields
		if fn := t.decl.FieldsFunc; fn != nil {
			fields, err = fn(c.Request().Context(), &SchemaRequest{Request: base})
			if err != nil {
				return err
			}
			if errs := checkFields(id, fields); len(errs) > 0 {
				err := errors.Join(errs...)
				return &Error{Status: http.StatusInternalServerError, Message: "the app's computed schema is invalid: " + err.Error(), Err: err}
			}
		}
		m := make(map[string]protocol.SchemaField, len(fields)+1)
		for i := range fields {
			f := fields[i]
			if r := f.Relation; r != nil && r.TargetName == "" {
				r2 := *r
				r2.TargetName = t.decl.Name
				f.Relation = &r2
			}
			m[f.ID] = f.wire()
		}
		if t.decl.Delta {
			m[protocol.SyncAction] = protocol.SchemaField{ID: protocol.SyncAction, Name: "Sync action", Type: string(KindText), Ignore: true}
		}
		out[id] = m
	}
	return writeJSON(c.Response(), http.StatusOK, out)
}

func (s *server) data(c *echo.Context) error {
	var in protocol.DataRequest
	if err := s.decode(c, &in); err != nil {
		return err
	}
	s.noteSecrets(c, in.Account)
	details(c).requestedType = in.RequestedType
	t, ok := s.b.types[in.RequestedType]
	if !ok {
		return BadRequest("requestedType: unknown type %q", in.RequestedType)
	}
	base, err := s.request(c, in.Account, in.Types, in.Filter)
	if err != nil {
		return err
	}
	req := &DataRequest{Request: base, RequestedType: in.RequestedType, OperationID: string(in.OperationID), Version: string(in.Version), Schema: in.Schema,
		margin: s.app.Sync.DeltaMargin}
	if in.LastSynchronizedAt != nil && *in.LastSynchronizedAt != "" {
		ts, err := parseSyncTime(*in.LastSynchronizedAt)
		if err != nil {
			return BadRequest("%v", err)
		}
		req.LastSynchronizedAt = ts
	}
	buf := getBuffer()
	defer putBuffer(buf)
	pp := &pageProblems{typ: t.decl.ID}
	out, err := t.decl.Data.page(c.Request().Context(), req, in.Pagination, t, (*buf)[:0], pp)
	*buf = out
	s.logViolations(pp)
	if err != nil {
		return err
	}
	s.countItems(t.decl.ID, pp.items)
	return writeBytes(c.Response(), http.StatusOK, out)
}

func (s *server) datalist(c *echo.Context) error {
	var in protocol.DatalistRequest
	if err := s.decode(c, &in); err != nil {
		return err
	}
	s.noteSecrets(c, in.Account)
	f, ok := s.b.filters[in.Field]
	if !ok || f.datalist == nil {
		return BadRequest("field: %q is not a filter with a datalist", in.Field)
	}
	base, err := s.request(c, in.Account, in.Types, nil)
	if err != nil {
		return err
	}
	deps, err := decodeFilters(s.b.filters, in.DependsOn)
	if err != nil {
		return err
	}
	opts, err := f.datalist(c.Request().Context(), &DatalistRequest{Request: base, Field: in.Field, DependsOn: deps})
	if err != nil {
		return err
	}
	out := protocol.DatalistResponse{Items: make([]protocol.DatalistItem, len(opts))}
	for i, o := range opts {
		out.Items[i] = protocol.DatalistItem{Title: o.Title, Value: o.Value}
	}
	return writeJSON(c.Response(), http.StatusOK, out)
}

// filterValidate checks every declared filter's value shape and requiredness,
// then runs the app's own check. Valid → 204.
func (s *server) filterValidate(c *echo.Context) error {
	var in protocol.FilterValidateRequest
	if err := s.decode(c, &in); err != nil {
		return err
	}
	base, err := s.typedRequest(c, in.Account, in.Types, in.Filter)
	if err != nil {
		return err
	}
	for _, id := range slices.Sorted(maps.Keys(s.b.filters)) {
		if f := s.b.filters[id]; !f.optional {
			if _, has := base.Filter.values[id]; !has {
				return BadRequest("filter %q (%s) is required", id, f.title)
			}
		}
	}
	if fn := s.app.Sync.ValidateFilter; fn != nil {
		if err := fn(c.Request().Context(), &base); err != nil {
			return asStatus(err, http.StatusBadRequest)
		}
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *server) resource(c *echo.Context) error {
	var in protocol.ResourceRequest
	if err := s.decode(c, &in); err != nil {
		return err
	}
	base, err := s.request(c, in.Account, in.Types, in.Filter)
	if err != nil {
		return err
	}
	res, err := s.app.Sync.Resource(c.Request().Context(), &ResourceRequest{Request: base, Params: in.Params})
	if err != nil {
		if res != nil && res.Body != nil {
			res.Body.Close()
		}
		return err
	}
	if res == nil || res.Body == nil {
		return NewError(http.StatusNotFound, "resource not found")
	}
	defer res.Body.Close()
	h := c.Response().Header()
	ct := res.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	h.Set("Content-Type", ct)
	if res.Size > 0 {
		h.Set("Content-Length", strconv.FormatInt(res.Size, 10))
	}
	if res.Name != "" {
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": res.Name}))
	}
	c.Response().WriteHeader(http.StatusOK)
	_, err = io.Copy(c.Response(), res.Body)
	return err
}

func (s *server) webhookRequest(c *echo.Context) (*WebhookRequest, error) {
	var in protocol.WebhookRequest
	if err := s.decode(c, &in); err != nil {
		return nil, err
	}
	base, err := s.request(c, in.Account, in.Types, in.Filter)
	if err != nil {
		return nil, err
	}
	return &WebhookRequest{Request: base, URL: in.URL, Webhook: webhookOf(in.Webhook)}, nil
}

func (s *server) webhookInstall(c *echo.Context) error {
	req, err := s.webhookRequest(c)
	if err != nil {
		return err
	}
	w, err := s.app.Sync.Webhooks.Install(c.Request().Context(), req)
	if err != nil {
		return err
	}
	if w == nil || w.ID == "" {
		return NewError(http.StatusInternalServerError, "webhook install returned no webhook id")
	}
	return writeJSON(c.Response(), http.StatusOK, w.wire())
}

func (s *server) webhookDelete(c *echo.Context) error {
	req, err := s.webhookRequest(c)
	if err != nil {
		return err
	}
	if req.Webhook == nil {
		return BadRequest("webhook is required")
	}
	if err := s.app.Sync.Webhooks.Delete(c.Request().Context(), req); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

func (s *server) webhookVerify(c *echo.Context) error {
	var in protocol.WebhookVerifyRequest
	if err := s.decode(c, &in); err != nil {
		return err
	}
	id, err := s.app.Sync.Webhooks.Verify(c.Request().Context(), &WebhookEvent{Params: in.Params, Payload: in.Payload})
	if err != nil {
		return asStatus(err, http.StatusUnauthorized)
	}
	return writeJSON(c.Response(), http.StatusOK, protocol.WebhookVerifyResponse{ID: id})
}

func (s *server) webhookTransform(c *echo.Context) error {
	var in protocol.WebhookTransformRequest
	if err := s.decode(c, &in); err != nil {
		return err
	}
	base, err := s.request(c, in.Account, in.Types, in.Filter)
	if err != nil {
		return err
	}
	changes, err := s.app.Sync.Webhooks.Transform(c.Request().Context(), &WebhookEvent{Request: base, Params: in.Params, Payload: in.Payload})
	if err != nil {
		return err
	}
	buf := getBuffer()
	defer putBuffer(buf)
	dst := append((*buf)[:0], `{"data":{`...)
	for i, typ := range slices.Sorted(maps.Keys(changes)) {
		t, ok := s.b.types[typ]
		if !ok {
			return handlerMistake("webhook transform returned changes of undeclared type %q", typ)
		}
		if !t.decl.Delta && len(changes[typ].Removed) > 0 {
			return handlerMistake("webhook transform removes items of type %q, which does not declare Delta", typ)
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonw.AppendString(dst, typ)
		dst = append(dst, ":["...)
		pp := &pageProblems{typ: typ}
		ch := changes[typ]
		dst = encodeLoose(dst, ch.Items, t, pp)
		s.logViolations(pp)
		if pp.mistake != "" {
			return handlerMistake("webhook transform, type %q: %s", typ, pp.mistake)
		}
		dst = appendRemovals(dst, ch.Removed, len(ch.Items) > 0)
		dst = append(dst, ']')
	}
	dst = append(dst, "}}\n"...)
	*buf = dst
	return writeBytes(c.Response(), http.StatusOK, dst)
}

func (s *server) actionExecute(c *echo.Context) error {
	var in protocol.ActionExecuteRequest
	if err := s.decode(c, &in); err != nil {
		return err
	}
	s.noteSecrets(c, in.Account)
	details(c).action = in.Action.Action
	ac, ok := s.b.actions[in.Action.Action]
	if !ok {
		return BadRequest("action.action: unknown action %q", in.Action.Action)
	}
	for _, a := range ac.Args {
		if v, ok := in.Action.Args[a.ID]; !a.Optional && (!ok || v == nil) {
			return BadRequest("action.args.%s: the argument %q is required", a.ID, a.Name)
		}
	}
	args := make(Args, len(in.Action.Args))
	for id, v := range in.Action.Args {
		known := false
		for _, a := range ac.Args {
			known = known || a.ID == id
		}
		if !known {
			// An automation saved before the argument was removed still
			// runs: the stale argument is dropped, not refused.
			continue
		}
		switch v.(type) {
		case string, float64, bool, nil:
		default:
			return BadRequest("action.args.%s: want a text value", id)
		}
		args[id] = v
	}
	base, err := s.request(c, in.Account, nil, nil)
	if err != nil {
		return err
	}
	if err := ac.Run(c.Request().Context(), &ActionRequest{Request: base, Action: ac.ID, Args: args}); err != nil {
		return err
	}
	return writeJSON(c.Response(), http.StatusOK, struct{}{})
}
