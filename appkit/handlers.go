package appkit

import (
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
	"github.com/appkitgo/appkit/internal/secretmask"
)

func details(c *echo.Context) *logDetails {
	if d, ok := c.Get(logKey).(*logDetails); ok {
		return d
	}
	return &logDetails{}
}

// envelope is what the endpoint prologue reads of a decoded request body.
type envelope struct {
	// account is the request's account: its secret fields and tokens are
	// masked, and it is the Request's Account.
	account protocol.Object
	// secrets are further values to mask: an OAuth code or verifier.
	secrets []string
	// types and filter are the Request's selected types and filter values.
	types  []string
	filter protocol.Values
	// typed refuses (400) an id in types that is not a declared type.
	typed bool
	// requestedType is the type a data request loads: it is logged, and
	// refused (400) unless declared.
	requestedType string
}

// endpoint is the prologue every protocol handler shares, written once: it
// reads the body into an In (size-limited, validated: a 400 names the field),
// notes the secrets that read finds in it so that the error answer and the
// log line mask them, refuses undeclared types, and builds the Request from
// the account, types and filter (a malformed filter value is a 400). Then
// handle answers. read is nil for a body that carries nothing of the kind.
func endpoint[In any](s *server, c *echo.Context, read func(*In) envelope, handle func(in *In, req Request) error) error {
	var in In
	if err := s.decode(c, &in); err != nil {
		return err
	}
	var w envelope
	if read != nil {
		w = read(&in)
	}
	s.noteSecrets(c, w.account)
	if len(w.secrets) > 0 {
		d := details(c)
		d.secrets = append(d.secrets, w.secrets...)
	}
	if w.requestedType != "" {
		details(c).requestedType = w.requestedType
		if _, ok := s.b.types[w.requestedType]; !ok {
			return BadRequest("requestedType: unknown type %q", w.requestedType)
		}
	}
	if w.typed {
		for _, t := range w.types {
			if _, ok := s.b.types[t]; !ok {
				return BadRequest("types: unknown type %q", t)
			}
		}
	}
	f, err := decodeFilters(s.b.filters, w.filter)
	if err != nil {
		return err
	}
	return handle(&in, Request{Account: Account(w.account), Types: w.types, Filter: f, app: s.app})
}

// noteSecrets records the values of secret account fields so that error
// messages and the log line can mask them; a request's account is noted once.
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
	// Basic credentials travel as base64 of "user:password", a spelling an
	// upstream's error may echo (its Authorization header).
	user, _ := BasicAuthUsername.Get(account)
	if pass, ok := BasicAuthPassword.Get(account); ok {
		d.secrets = append(d.secrets, secretmask.BasicSpellings(user, pass)...)
	}
}

func (s *server) descriptor(c *echo.Context) error {
	return writeJSON(c.Response(), http.StatusOK, s.b.descriptor)
}

func (s *server) validate(c *echo.Context) error {
	read := func(in *protocol.ValidateRequest) envelope { return envelope{account: in.Fields} }
	return endpoint(s, c, read, func(in *protocol.ValidateRequest, base Request) error {
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
			v, err := au.Validate(c.Request().Context(), base.Account)
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
	})
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
	read := func(in *protocol.ConfigRequest) envelope { return envelope{account: in.Account} }
	return endpoint(s, c, read, func(*protocol.ConfigRequest, Request) error {
		return writeJSON(c.Response(), http.StatusOK, s.b.config)
	})
}

func (s *server) schema(c *echo.Context) error {
	read := func(in *protocol.SchemaRequest) envelope {
		return envelope{account: in.Account, types: in.Types, filter: in.Filter, typed: true}
	}
	return endpoint(s, c, read, func(in *protocol.SchemaRequest, base Request) error {
		out := make(protocol.Schema, len(in.Types))
		for _, id := range in.Types {
			t := s.b.types[id]
			fields := t.fields
			if fn := t.decl.FieldsFunc; fn != nil {
				var err error
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
	})
}

func (s *server) data(c *echo.Context) error {
	read := func(in *protocol.DataRequest) envelope {
		return envelope{account: in.Account, types: in.Types, filter: in.Filter, requestedType: in.RequestedType}
	}
	return endpoint(s, c, read, func(in *protocol.DataRequest, base Request) error {
		t := s.b.types[in.RequestedType]
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
	})
}

func (s *server) datalist(c *echo.Context) error {
	read := func(in *protocol.DatalistRequest) envelope { return envelope{account: in.Account, types: in.Types} }
	return endpoint(s, c, read, func(in *protocol.DatalistRequest, base Request) error {
		f, ok := s.b.filters[in.Field]
		if !ok || f.datalist == nil {
			return BadRequest("field: %q is not a filter with a datalist", in.Field)
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
	})
}

// filterValidate checks every declared filter's value shape and requiredness,
// then runs the app's own check. Valid → 204.
func (s *server) filterValidate(c *echo.Context) error {
	read := func(in *protocol.FilterValidateRequest) envelope {
		return envelope{account: in.Account, types: in.Types, filter: in.Filter, typed: true}
	}
	return endpoint(s, c, read, func(_ *protocol.FilterValidateRequest, base Request) error {
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
	})
}

func (s *server) resource(c *echo.Context) error {
	read := func(in *protocol.ResourceRequest) envelope {
		return envelope{account: in.Account, types: in.Types, filter: in.Filter}
	}
	return endpoint(s, c, read, func(in *protocol.ResourceRequest, base Request) error {
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
	})
}

// webhookEndpoint is endpoint for the bodies of POST and DELETE webhooks.
func (s *server) webhookEndpoint(c *echo.Context, handle func(req *WebhookRequest) error) error {
	read := func(in *protocol.WebhookRequest) envelope {
		return envelope{account: in.Account, types: in.Types, filter: in.Filter}
	}
	return endpoint(s, c, read, func(in *protocol.WebhookRequest, base Request) error {
		return handle(&WebhookRequest{Request: base, URL: in.URL, Webhook: webhookOf(in.Webhook)})
	})
}

func (s *server) webhookInstall(c *echo.Context) error {
	return s.webhookEndpoint(c, func(req *WebhookRequest) error {
		w, err := s.app.Sync.Webhooks.Install(c.Request().Context(), req)
		if err != nil {
			return err
		}
		if w == nil || w.ID == "" {
			return NewError(http.StatusInternalServerError, "webhook install returned no webhook id")
		}
		return writeJSON(c.Response(), http.StatusOK, w.wire())
	})
}

func (s *server) webhookDelete(c *echo.Context) error {
	return s.webhookEndpoint(c, func(req *WebhookRequest) error {
		if req.Webhook == nil {
			return BadRequest("webhook is required")
		}
		if err := s.app.Sync.Webhooks.Delete(c.Request().Context(), req); err != nil {
			return err
		}
		return c.NoContent(http.StatusNoContent)
	})
}

func (s *server) webhookVerify(c *echo.Context) error {
	return endpoint(s, c, nil, func(in *protocol.WebhookVerifyRequest, _ Request) error {
		id, err := s.app.Sync.Webhooks.Verify(c.Request().Context(), &WebhookEvent{Params: in.Params, Payload: in.Payload})
		if err != nil {
			return asStatus(err, http.StatusUnauthorized)
		}
		return writeJSON(c.Response(), http.StatusOK, protocol.WebhookVerifyResponse{ID: id})
	})
}

func (s *server) webhookTransform(c *echo.Context) error {
	read := func(in *protocol.WebhookTransformRequest) envelope {
		return envelope{account: in.Account, types: in.Types, filter: in.Filter}
	}
	return endpoint(s, c, read, func(in *protocol.WebhookTransformRequest, base Request) error {
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
	})
}

func (s *server) actionExecute(c *echo.Context) error {
	read := func(in *protocol.ActionExecuteRequest) envelope { return envelope{account: in.Account} }
	return endpoint(s, c, read, func(in *protocol.ActionExecuteRequest, base Request) error {
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
		if err := ac.Run(c.Request().Context(), &ActionRequest{Request: base, Action: ac.ID, Args: args}); err != nil {
			return err
		}
		return writeJSON(c.Response(), http.StatusOK, struct{}{})
	})
}
