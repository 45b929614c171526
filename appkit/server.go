package appkit

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-playground/validator/v10"
	"github.com/labstack/echo/v5"
	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/calllog"
	"github.com/appkitgo/appkit/internal/loopback"
	"github.com/appkitgo/appkit/internal/secretmask"
)

const defaultMaxBody = 10 << 20

// Handler checks the declaration (once) and returns the http.Handler that
// serves every endpoint of the protocol. It returns the declaration's
// problems, joined, when the App is not valid.
func (a *App) Handler() (http.Handler, error) {
	a.once.Do(func() {
		b, err := a.build()
		if err != nil {
			a.err = err
			return
		}
		a.state = b
		a.handler = a.routes(b)
	})
	return a.handler, a.err
}

// ServeHTTP serves the app; a declaration error answers 500 on every request
// (call [App.Check] or [App.Handler] at start to fail early instead).
func (a *App) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, err := a.Handler()
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, protocol.ErrorBody{Message: "app declaration is invalid"})
		return
	}
	h.ServeHTTP(w, r)
}

var validate = func() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	return v
}()

// server holds what the routes need.
type server struct {
	app     *App
	b       *built
	log     zerolog.Logger
	maxBody int64
	// logged holds "type\x00rule" of the item violations already logged:
	// each is logged once, not per item.
	logged sync.Map
	// metrics are the app's instruments (nil: none; see observe.go).
	metrics *appMetrics
}

// logViolations logs the first violation of each type and rule.
func (s *server) logViolations(pp *pageProblems) {
	for _, v := range pp.violations {
		if _, seen := s.logged.LoadOrStore(v.Type+"\x00"+string(v.Rule), true); seen {
			continue
		}
		s.log.Warn().Str(LogKeyType, v.Type).Str(LogKeyRule, string(v.Rule)).Str(LogKeyViolation, v.Error()).
			Msg("an item breaks the protocol (logged once per type and rule)")
	}
}

// logKey is where a request's log details live in the echo context.
const logKey = "appkit.log"

type logDetails struct {
	requestedType string
	action        string
	secrets       []string
	noted         bool // the account's secrets are in secrets

	// masker masks the first maskerOf secrets: made when first needed,
	// again only if more were noted since.
	masker   *secretmask.Masker
	maskerOf int
}

// secretMasker masks the request's secrets noted so far (see
// [secretMasker]); it is made once per request, not per message.
func (d *logDetails) secretMasker() *secretmask.Masker {
	if d.maskerOf != len(d.secrets) {
		d.masker, d.maskerOf = secretMasker(d.secrets), len(d.secrets)
	}
	return d.masker
}

func (a *App) routes(b *built) http.Handler {
	s := &server{app: a, b: b, maxBody: a.MaxBodyBytes}
	if s.maxBody <= 0 {
		s.maxBody = defaultMaxBody
	}
	if a.Logger != nil {
		s.log = *a.Logger
	} else {
		s.log = defaultLogger()
	}
	e := echo.New()
	e.HTTPErrorHandler = s.handleError
	e.Use(s.middleware)

	getOrHead := []string{http.MethodGet, http.MethodHead}
	e.Match(getOrHead, protocol.PathDescriptor, s.descriptor)
	e.POST(protocol.PathValidate, s.validate)
	e.Match(getOrHead, protocol.PathLogo, s.logo)

	sync := a.Sync
	e.POST(protocol.PathConfig, s.when(sync != nil, s.config))
	e.POST(protocol.PathSchema, s.when(sync != nil, s.schema))
	e.POST(protocol.PathData, s.when(sync != nil, s.data))
	hasDatalist := false
	for _, f := range b.filters {
		hasDatalist = hasDatalist || f.datalist != nil
	}
	e.POST(protocol.PathDatalist, s.when(hasDatalist, s.datalist))
	e.POST(protocol.PathFilterValidate, s.when(sync != nil, s.filterValidate))
	e.POST(protocol.PathResource, s.when(sync != nil && sync.Resource != nil, s.resource))
	hooks := sync != nil && sync.Webhooks != nil
	e.POST(protocol.PathWebhooks, s.when(hooks, s.webhookInstall))
	e.DELETE(protocol.PathWebhooks, s.when(hooks, s.webhookDelete))
	e.POST(protocol.PathWebhookVerify, s.when(hooks, s.webhookVerify))
	e.POST(protocol.PathWebhookXform, s.when(hooks, s.webhookTransform))
	e.POST(protocol.PathActionExecute, s.when(len(a.Actions) > 0, s.actionExecute))

	var o1, o2 *Auth
	for i := range a.Auth {
		switch {
		case a.Auth[i].OAuth1 != nil:
			o1 = &a.Auth[i]
		case a.Auth[i].OAuth2 != nil:
			o2 = &a.Auth[i]
		}
	}
	e.POST(protocol.PathOAuth1Auth, s.when(o1 != nil, func(c *echo.Context) error { return s.oauth1Authorize(c, o1) }))
	e.POST(protocol.PathOAuth1Token, s.when(o1 != nil, func(c *echo.Context) error { return s.oauth1AccessToken(c, o1) }))
	e.POST(protocol.PathOAuth2Auth, s.when(o2 != nil, func(c *echo.Context) error { return s.oauth2Authorize(c, o2) }))
	e.POST(protocol.PathOAuth2Token, s.when(o2 != nil, func(c *echo.Context) error { return s.oauth2AccessToken(c, o2) }))
	return s.observed(e)
}

// when serves h if the feature is declared, and 404 otherwise.
func (s *server) when(declared bool, h echo.HandlerFunc) echo.HandlerFunc {
	if declared {
		return h
	}
	return func(*echo.Context) error { return errNotDeclared }
}

func defaultLogger() zerolog.Logger {
	if isatty.IsTerminal(os.Stderr.Fd()) {
		return zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr, TimeFormat: time.TimeOnly}).With().Timestamp().Logger()
	}
	return zerolog.New(os.Stderr).With().Timestamp().Logger()
}

// middleware recovers panics, runs the error handler and logs one line.
func (s *server) middleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c *echo.Context) (err error) {
		start := time.Now()
		req := c.Request()
		id := req.Header.Get("X-Request-Id")
		if id == "" || len(id) > 128 {
			id = newRequestID()
		}
		c.Response().Header().Set("X-Request-Id", id)
		// The handler's context carries the request's logger, so that what
		// the handler logs through zerolog.Ctx (appkit/upstream's debug line
		// per call among it) goes to the app's log with the request id.
		reqLog := s.log.With().Str(LogKeyRequestID, id).Logger()
		ctx := reqLog.WithContext(req.Context())
		if v := req.Header.Get(calllog.RequestHeader); v != "" {
			ctx = s.collectCalls(ctx, c, v)
		}
		probe := protocol.ProbeID(req.Header.Get(protocol.ProbeHeader))
		req = req.WithContext(ctx)
		c.SetRequest(req)
		details := &logDetails{}
		c.Set(logKey, details)
		func() {
			defer func() {
				if p := recover(); p != nil {
					reqLog.Error().Str(LogKeyPanic, fmt.Sprint(p)).Bytes(LogKeyStack, debug.Stack()).Msg("handler panicked")
					err = &Error{Status: http.StatusInternalServerError, Message: "internal error"}
				}
			}()
			err = next(c)
		}()
		if err != nil {
			s.handleError(c, err)
		}
		status := http.StatusOK
		if r, _ := echo.UnwrapResponse(c.Response()); r != nil && r.Status != 0 {
			status = r.Status
		}
		ev := reqLog.Info()
		if status >= 500 {
			ev = reqLog.Error()
		} else if status >= 400 && probe == "" {
			ev = reqLog.Warn()
		}
		ev = ev.Str(LogKeyMethod, req.Method).Str(LogKeyPath, req.URL.Path).Int(LogKeyStatus, status).
			Dur(LogKeyDuration, time.Since(start))
		if probe != "" {
			ev = ev.Str(LogKeyProbe, probe)
		}
		if details.requestedType != "" {
			ev = ev.Str(LogKeyType, details.secretMasker().MaskValue(details.requestedType))
		}
		if details.action != "" {
			ev = ev.Str(LogKeyAction, details.secretMasker().MaskValue(details.action))
		}
		if err != nil {
			ev = ev.Str(LogKeyError, details.secretMasker().MaskValues(err.Error()))
		}
		ev.Msg("request")
		return nil
	}
}

// collectCalls answers the host's request for the upstream calls (the
// value v of calllog.RequestHeader): a collector in the returned context,
// for appkit/upstream to fill, and its report set as the answer's header
// just before the header is written (after the handler, for its answer,
// an error or a panic alike). Calls that end after that are not reported.
func (s *server) collectCalls(ctx context.Context, c *echo.Context, v string) context.Context {
	calls, bodies := calllog.Asked(v)
	if !calls {
		return ctx
	}
	r, err := echo.UnwrapResponse(c.Response())
	if err != nil {
		return ctx
	}
	col := calllog.New(bodies)
	r.Before(func() {
		if h := col.Header(); h != "" {
			r.Header().Set(calllog.AnswerHeader, h)
		}
	})
	return calllog.NewContext(ctx, col)
}

func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// secretMasker masks a request's secrets (the account's and those its
// envelope noted) with internal/secretmask: in a message, every value (a
// run of characters between spaces, quotes and the punctuation that
// delimits values) that holds a secret of secretmask.MinLen bytes or more,
// in any of its spellings, is replaced whole by ***, and so is a quoted
// value equal to a shorter secret (masking every "ab" in a message would
// garble it and hide nothing). Without secrets it is nil, which masks
// nothing.
func secretMasker(secrets []string) *secretmask.Masker {
	if len(secrets) == 0 {
		return nil
	}
	return secretmask.New(secrets...)
}

// handleError turns any error into the protocol's {message[, tryLater]}.
func (s *server) handleError(c *echo.Context, err error) {
	if r, _ := echo.UnwrapResponse(c.Response()); r != nil && r.Committed {
		return
	}
	status, body := http.StatusInternalServerError, protocol.ErrorBody{Message: err.Error()}
	var ae *Error
	var mbe *http.MaxBytesError
	var ue *url.Error
	var ne net.Error
	switch {
	case errors.As(err, &ae):
		status, body.Message, body.TryLater = ae.Status, ae.Error(), ae.TryLater
		if ae.RetryAfter > 0 {
			secs := int((ae.RetryAfter + time.Second - 1) / time.Second)
			c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
		}
	case errors.As(err, &mbe):
		status, body.Message = http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is larger than %d bytes", mbe.Limit)
	case errors.Is(err, echo.ErrNotFound):
		status, body.Message = http.StatusNotFound, "not found"
	case errors.Is(err, echo.ErrMethodNotAllowed):
		status, body.Message = http.StatusMethodNotAllowed, "method not allowed"
	case errors.Is(err, context.Canceled):
		status, body.Message, body.TryLater = http.StatusServiceUnavailable, "request cancelled", true
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		status, body.TryLater = http.StatusServiceUnavailable, true
		body.Message = "timed out: " + upstreamText(err)
	case unreachable(err):
		// The upstream refused the connection or its name did not resolve:
		// that says nothing about the account and may pass.
		status, body.TryLater = http.StatusServiceUnavailable, true
		body.Message = "unreachable: " + upstreamText(err)
	case errors.As(err, &ue):
		// An outgoing call failed: name the host, not the URL (its path and
		// query may hold keys).
		body.Message = upstreamText(err)
	default:
		if sc := echo.StatusCode(err); sc != 0 {
			status = sc
			body.Message = http.StatusText(sc)
		}
	}
	body.Message = details(c).secretMasker().MaskValues(body.Message)
	if status == 0 {
		status = http.StatusInternalServerError
	}
	if body.Message == "" {
		body.Message = http.StatusText(status)
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	_ = writeJSON(c.Response(), status, body)
}

// unreachable reports an outgoing call that could not reach its host: a
// refused or reset connection, a failed name lookup, any failed dial.
func unreachable(err error) bool {
	var dns *net.DNSError
	var op *net.OpError
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH) ||
		errors.As(err, &dns) || (errors.As(err, &op) && op.Op == "dial")
}

// upstreamText describes a failed outgoing call by its host and cause only.
func upstreamText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		host := ue.URL
		if u, perr := url.Parse(ue.URL); perr == nil {
			host = u.Host
		}
		cause := ue.Err.Error()
		if errors.Is(ue.Err, context.DeadlineExceeded) {
			cause = "deadline exceeded"
		}
		return fmt.Sprintf("call to %s failed: %s", host, cause)
	}
	return err.Error()
}

// pagePool holds the buffers that pages are encoded into.
var pagePool = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

func getBuffer() *[]byte { return pagePool.Get().(*[]byte) }

// putBuffer returns a buffer to the pool, unless it grew past 4 MiB.
func putBuffer(b *[]byte) {
	if cap(*b) <= 4<<20 {
		pagePool.Put(b)
	}
}

// writeBytes writes an encoded JSON answer with its length.
func writeBytes(w http.ResponseWriter, status int, body []byte) error {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, err := w.Write(body)
	return err
}

// writeJSON encodes v and writes it with its length.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	return writeBytes(w, status, append(data, '\n'))
}

// decode reads a JSON body into v (size-limited; an empty body is {}) and
// validates it. Errors answer 400 naming the field.
func (s *server) decode(c *echo.Context, v any) error {
	r := c.Request()
	body := http.MaxBytesReader(c.Response(), r.Body, s.maxBody)
	data, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	if err := decodeBody(data, v); err != nil {
		return err
	}
	return nil
}

// decodeBody is the request decoding shared by every endpoint.
func decodeBody(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) != 0 {
		if err := json.Unmarshal(data, v); err != nil {
			var te *json.UnmarshalTypeError
			var se *json.SyntaxError
			switch {
			case errors.As(err, &te):
				field := te.Field
				if field == "" {
					field = "body"
				}
				return BadRequest("%s: want %s, got JSON %s", field, te.Type, te.Value)
			case errors.As(err, &se):
				return BadRequest("malformed JSON at byte %d: %v", se.Offset, se)
			default:
				return BadRequest("malformed JSON: %v", err)
			}
		}
	}
	if err := validate.Struct(v); err != nil {
		var ve validator.ValidationErrors
		if errors.As(err, &ve) && len(ve) > 0 {
			f := ve[0]
			ns := f.Namespace()
			if i := strings.IndexByte(ns, '.'); i >= 0 {
				ns = ns[i+1:]
			}
			switch f.Tag() {
			case "required":
				return BadRequest("%s is required", ns)
			case "min":
				return BadRequest("%s needs at least %s element(s)", ns, f.Param())
			case "url":
				return BadRequest("%s must be an absolute URL", ns)
			}
			return BadRequest("%s is invalid (%s)", ns, f.Tag())
		}
		return BadRequest("invalid request: %v", err)
	}
	return nil
}

// Serve serves the app on srv's address until ctx is cancelled, then shuts
// down gracefully (waiting up to 15 s for requests in flight). Zero timeouts
// of srv get safe defaults: 10 s to read headers, 60 s to read a request,
// 5 minutes to write an answer (a longer resource stream is cut: raise
// WriteTimeout for big files), 2 minutes idle. When srv.TLSConfig holds a
// certificate (Certificates or GetCertificate), it serves HTTPS, as the protocol
// recommends. On a loopback address it checks the Host header, as
// [ServeListener] says.
func Serve(ctx context.Context, srv *http.Server, app *App) error {
	if _, err := app.Handler(); err != nil {
		return err
	}
	addr := srv.Addr
	if addr == "" {
		addr = ":http"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	return serve(ctx, srv, l, app)
}

// serve serves app on l with srv's settings (and the defaults of [Serve])
// until ctx is cancelled; l is closed on return.
func serve(ctx context.Context, srv *http.Server, l net.Listener, app *App) error {
	h, err := app.Handler()
	if err != nil {
		l.Close()
		return err
	}
	srv.Handler = h
	if loopback.Only(l.Addr()) {
		srv.Handler = loopback.Guard(h, l.Addr().(*net.TCPAddr).Port)
	}
	if srv.ReadHeaderTimeout == 0 {
		srv.ReadHeaderTimeout = 10 * time.Second
	}
	if srv.ReadTimeout == 0 {
		srv.ReadTimeout = 60 * time.Second
	}
	if srv.WriteTimeout == 0 {
		srv.WriteTimeout = 5 * time.Minute
	}
	if srv.IdleTimeout == 0 {
		srv.IdleTimeout = 2 * time.Minute
	}
	if srv.MaxHeaderBytes == 0 {
		srv.MaxHeaderBytes = 64 << 10
	}
	errc := make(chan error, 1)
	go func() {
		if tc := srv.TLSConfig; tc != nil && (len(tc.Certificates) > 0 || tc.GetCertificate != nil) {
			errc <- srv.ServeTLS(l, "", "")
			return
		}
		errc <- srv.Serve(l)
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// ListenAndServe serves the app on addr until SIGINT or SIGTERM (or ctx is
// cancelled), with timeouts, a request-size limit and graceful shutdown.
func ListenAndServe(ctx context.Context, addr string, app *App) error {
	ctx, stop := signalContext(ctx)
	defer stop()
	return Serve(ctx, &http.Server{Addr: addr}, app)
}

// ListenAddr returns the address an app's main listens on: the HOST and
// PORT variables read with getenv (os.Getenv, or a test's stand-in). PORT
// is the port, 8080 when it is unset or empty; it must be a port number
// from 0 to 65535 (0: a free port the system picks); anything else, a
// service name such as "http" included, is an error that names PORT and
// the value. HOST is the interface: unset or empty, every interface
// (":8080", as before HOST was read); 127.0.0.1, ::1 or localhost, this
// machine only ("appkit dev" sets HOST=127.0.0.1); else an IP address or
// a host name, without a port. A value that is neither is an error that
// names HOST.
//
// A main reads it before opening its listener, so that a wrong setting
// stops the app at once with a clear message:
//
//	addr, err := appkit.ListenAddr(getenv)
//	if err != nil {
//		return err
//	}
//	if l == nil {
//		if l, err = net.Listen("tcp", addr); err != nil {
//			return err
//		}
//	}
//	return appkit.ServeListener(ctx, l, app)
func ListenAddr(getenv func(string) string) (string, error) {
	port := getenv("PORT")
	if port == "" {
		port = "8080"
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("PORT: want a port number 0..65535, got %q", port)
	}
	host := getenv("HOST")
	if h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"); net.ParseIP(h) != nil {
		host = h // [::1] and ::1 alike
	} else if host != "" && !hostName.MatchString(host) {
		return "", fmt.Errorf("HOST: want an IP address or a host name to listen on (no port), got %q", host)
	}
	return net.JoinHostPort(host, strconv.Itoa(n)), nil // "+80" and "0080" listen on :80
}

// hostName is a DNS name HOST may give.
var hostName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\.?$`)

// ServeListener is [ListenAndServe] on a listener that the caller opened:
// it serves the app on l until SIGINT or SIGTERM (or ctx is cancelled) and
// closes l on return. A main that takes its listener from its caller can be
// run unchanged by a test: appkittest.ServeMain passes one open on a free
// loopback port, so no port is picked, released and raced for in between.
//
// On a listener of a loopback address (127.0.0.1, ::1: an app under
// "appkit dev", or HOST=127.0.0.1), as with [Serve] and [ListenAndServe],
// only requests whose Host header names that address are served
// (localhost, 127.0.0.1 or [::1] with the listener's port); others are
// answered 421 {message}: a page of another site could otherwise reach the
// app through the browser by DNS rebinding. A reverse proxy on the same
// machine must send the Host it connects to (nginx's default
// proxy_set_header Host $proxy_host does; Caddy: header_up Host
// {upstream_hostport}), or the app listen on another interface.
func ServeListener(ctx context.Context, l net.Listener, app *App) error {
	ctx, stop := signalContext(ctx)
	defer stop()
	return serve(ctx, &http.Server{}, l, app)
}
