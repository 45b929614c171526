// Package notify is the appkit example external-action app: automations of
// the workspace service call it to post a message to a chat's incoming
// webhook or to open an issue in an issue tracker.
//
// Build it in process with [New], or run it with `go run ./examples/actions`.
//
// # Accounts
//
// Two authentications: "token" (field "token", which must equal
// Config.Token) and, when Config.Username and Config.Password are set,
// "basic" (fields "username" and "password"). Both carry the optional
// destination fields "webhook_url" (the default incoming webhook of
// post-message), "issues_url" (the default issue endpoint of create-issue)
// and "issues_token" (sent as a bearer token to the issue endpoint). The
// account is checked again on every action call.
//
// # Actions
//
//   - post-message: POSTs {"text", "channel"?, "username"} as JSON to the
//     webhook_url argument, or to the account's webhook_url (the shape
//     Slack- and Mattermost-style incoming webhooks take).
//   - create-issue: POSTs {"title", "body", "labels"} as JSON to the
//     issues_url argument or the account's issues_url (the shape of GitHub's
//     and Gitea's "create an issue" endpoints), with the account's
//     issues_token as "Authorization: Bearer".
//
// Text arguments accept the service's text templates.
//
// # Outgoing requests
//
// Every call has a timeout (Config.Timeout, 10 s by default) and follows
// the request's context. Targets must be https URLs without user info;
// connections to loopback, private, link-local and other non-public
// addresses are refused at dial time, after DNS resolution, so a target
// cannot reach the app's own network (Config.AllowHTTP and
// Config.AllowPrivateNetworks relax this for local testing). Redirects are
// not followed. Error messages name the target's host only, never its path
// or query, which for incoming webhooks is a secret.
//
// How the target's answer maps to the action's:
//
//	2xx                      200 {}
//	429, 502, 503, 504       503 {"message", "tryLater": true} (Retry-After passed on)
//	401, 403                 401: the target refused the credentials
//	other 4xx, 3xx           400 / 502 with the status and the start of its body
//	5xx                      502
//	network error, timeout   503 tryLater
package notify

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
)

// DefaultToken is the token accepted when Config.Token is empty.
const DefaultToken = "demo"

// DefaultTimeout bounds one outgoing request when Config.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// Limits of the arguments.
const (
	MaxText   = 40_000 // bytes of a message text or an issue body
	MaxTitle  = 256    // bytes of an issue title or a channel name
	MaxLabels = 20     // labels of an issue
	MaxLabel  = 50     // bytes of one label
	MaxURL    = 2048   // bytes of a target URL
)

// UserAgent is sent with every outgoing request.
const UserAgent = "appkit-notify/1.0"

// Config configures the app. The zero Config is valid: token "demo", no
// basic authentication, https public targets only, 10 s timeout.
type Config struct {
	// Token is the value of the "token" account field that is accepted;
	// empty means [DefaultToken].
	Token string
	// Username and Password, when both set, enable basic authentication.
	Username, Password string
	// Timeout bounds each outgoing request; 0 means [DefaultTimeout].
	Timeout time.Duration
	// AllowHTTP allows http:// targets (https only otherwise).
	AllowHTTP bool
	// AllowPrivateNetworks allows targets on loopback, private and
	// link-local addresses.
	AllowPrivateNetworks bool
	// Logger receives the request log; nil means appkit's default.
	Logger *zerolog.Logger
}

type notifier struct {
	cfg    Config
	client *http.Client
}

// New returns the notify app for cfg.
func New(cfg Config) *appkit.App {
	if cfg.Token == "" {
		cfg.Token = DefaultToken
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	n := &notifier{cfg: cfg, client: newClient(cfg)}
	auths := []appkit.Auth{{
		ID: "token", Name: "Token", Description: "The token of this notify app",
		Fields:   appkit.Form(tokenField, webhookURLField, issuesURLField, issuesTokenField),
		Validate: n.validator("token"),
	}}
	if cfg.Username != "" && cfg.Password != "" {
		auths = append(auths, appkit.Auth{
			ID: "basic", Name: "User name and password", Description: "The user of this notify app",
			Fields:   appkit.Form(appkit.BasicAuthUsername, appkit.BasicAuthPassword, webhookURLField, issuesURLField, issuesTokenField),
			Validate: n.validator("basic"),
		})
	}
	return &appkit.App{
		ID:          "notify",
		Name:        "Notify",
		Version:     "1.0.0",
		Description: "Posts messages to chat webhooks and opens issues, from automations (appkit example)",
		Website:     "https://github.com/appkitgo/appkit/tree/main/examples/actions",
		Auth:        auths,
		Actions: []appkit.Action{
			{
				ID: "post-message", Name: "Post a message",
				Description: "Posts a message to a chat's incoming webhook",
				Args:        appkit.ArgList(textArg, channelArg, webhookURLArg),
				Run:         n.postMessage,
			},
			{
				ID: "create-issue", Name: "Create an issue",
				Description: "Opens an issue through an issue tracker's create-issue endpoint",
				Args:        appkit.ArgList(titleArg, bodyArg, labelsArg, issuesURLArg),
				Run:         n.createIssue,
			},
		},
		Logo:   appkit.LogoSVG(logo),
		Logger: cfg.Logger,
	}
}

var logo = []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="64" height="64">` +
	`<rect width="64" height="64" rx="12" fill="#c05621"/>` +
	`<path d="M32 14a12 12 0 0 0-12 12v10l-5 7h34l-5-7V26a12 12 0 0 0-12-12z" fill="#fff"/>` +
	`<circle cx="32" cy="49" r="4" fill="#fff"/></svg>`)

// The account fields: the token (or the user name and password of
// appkit.BasicAuth), and the default destinations of both actions.
var (
	tokenField       = appkit.SecretAccountField("token", "Token", "The app's access token")
	webhookURLField  = appkit.TextAccountField("webhook_url", "Webhook URL", "Default incoming webhook of post-message (https)").Optional().Secret()
	issuesURLField   = appkit.TextAccountField("issues_url", "Issues URL", "Default create-issue endpoint, e.g. https://api.github.com/repos/OWNER/REPO/issues").Optional()
	issuesTokenField = appkit.SecretAccountField("issues_token", "Issues token", "Sent as a bearer token to the issues URL").Optional()
)

// The actions' arguments.
var (
	textArg       = appkit.TextAreaArg("text", "Text").Describe("The message (required)").Templated()
	channelArg    = appkit.TextArg("channel", "Channel").Describe("Channel override, when the webhook allows one").Templated().Optional()
	webhookURLArg = appkit.TextArg("webhook_url", "Webhook URL").Describe("Incoming webhook; the account's when empty").Optional()
	titleArg      = appkit.TextArg("title", "Title").Describe("The issue's title (required)").Templated()
	bodyArg       = appkit.TextAreaArg("body", "Body").Describe("The issue's description (Markdown)").Templated().Optional()
	labelsArg     = appkit.TextArg("labels", "Labels").Describe("Comma-separated labels").Templated().Optional()
	issuesURLArg  = appkit.TextArg("issues_url", "Issues URL").Describe("Create-issue endpoint; the account's when empty").Optional()
)

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// check verifies an account's credentials for the authentication it was
// set up with (the account's "auth" key; guessed from its fields when
// absent).
func (n *notifier) check(a appkit.Account) (string, error) {
	auth := a.Auth()
	if auth == "" {
		auth = "token"
		_, hasToken := tokenField.Get(a)
		if _, hasUser := appkit.BasicAuthUsername.Get(a); !hasToken && hasUser {
			auth = "basic"
		}
	}
	return n.checkAs(auth, a)
}

func (n *notifier) checkAs(auth string, a appkit.Account) (string, error) {
	switch auth {
	case "basic":
		if n.cfg.Username == "" || n.cfg.Password == "" {
			return "", appkit.InvalidAccount("basic authentication is not enabled")
		}
		u, uok := appkit.BasicAuthUsername.Get(a)
		p, pok := appkit.BasicAuthPassword.Get(a)
		if !uok || !pok {
			return "", appkit.InvalidAccount("username and password are required")
		}
		// Both compared, so that the time does not tell which was wrong.
		if okU, okP := equal(u, n.cfg.Username), equal(p, n.cfg.Password); !okU || !okP {
			return "", appkit.InvalidAccount("invalid username or password")
		}
		return u, nil
	case "token":
		tok, ok := tokenField.Get(a)
		if !ok {
			return "", appkit.InvalidAccount("token is missing")
		}
		if !equal(tok, n.cfg.Token) {
			return "", appkit.InvalidAccount("invalid token")
		}
		return "Notify", nil
	}
	return "", appkit.InvalidAccount("unknown authentication %q", auth)
}

// validator returns the /validate check of one authentication.
func (n *notifier) validator(auth string) appkit.ValidateFunc {
	return func(_ context.Context, a appkit.Account) (*appkit.Validation, error) {
		name, err := n.checkAs(auth, a)
		if err != nil {
			return nil, err
		}
		for _, f := range []appkit.AccountFieldOf[string]{webhookURLField, issuesURLField} {
			if v, ok := f.Get(a); ok {
				if _, err := n.target(v); err != nil {
					return nil, appkit.InvalidAccount("%s: %v", f.ID(), err)
				}
			}
		}
		return &appkit.Validation{Name: name}, nil
	}
}

// target checks a target URL's shape: absolute, https (or http when
// allowed), a host, no user info, bounded length.
func (n *notifier) target(raw string) (*url.URL, error) {
	return checkTarget(raw, n.cfg.AllowHTTP)
}

func checkTarget(raw string, allowHTTP bool) (*url.URL, error) {
	if len(raw) > MaxURL {
		return nil, fmt.Errorf("the URL is longer than %d bytes", MaxURL)
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, errors.New("not a URL")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowHTTP:
	case u.Scheme == "http":
		return nil, errors.New("the URL must use https")
	default:
		return nil, errors.New("not an https URL")
	}
	if u.Host == "" || u.Hostname() == "" || u.Opaque != "" {
		return nil, errors.New("the URL has no host")
	}
	if u.User != nil {
		return nil, errors.New("the URL must not carry a user name or password")
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// resolveTarget picks the argument's URL, or else the account's.
func (n *notifier) resolveTarget(req *appkit.ActionRequest, arg appkit.ArgOf[string], field appkit.AccountFieldOf[string]) (*url.URL, error) {
	raw, _ := arg.Get(req.Args)
	if strings.TrimSpace(raw) == "" {
		raw, _ = field.Get(req.Account)
	}
	if strings.TrimSpace(raw) == "" {
		return nil, appkit.BadRequest("%s: no target: give the %s argument or set %s in the account", req.Action, arg.ID(), field.ID())
	}
	u, err := n.target(raw)
	if err != nil {
		return nil, appkit.BadRequest("%s: %s: %v", req.Action, arg.ID(), err)
	}
	return u, nil
}

func required(req *appkit.ActionRequest, arg appkit.ArgOf[string], limit int) (string, error) {
	v, _ := arg.Get(req.Args)
	if strings.TrimSpace(v) == "" {
		return "", appkit.BadRequest("%s: %s is required", req.Action, arg.ID())
	}
	return v, optional(req, arg, limit)
}

func optional(req *appkit.ActionRequest, arg appkit.ArgOf[string], limit int) error {
	v, _ := arg.Get(req.Args)
	if len(v) > limit {
		return appkit.BadRequest("%s: %s is longer than %d bytes", req.Action, arg.ID(), limit)
	}
	if !utf8.ValidString(v) {
		return appkit.BadRequest("%s: %s is not valid UTF-8", req.Action, arg.ID())
	}
	return nil
}

// message is the body of post-message.
type message struct {
	Text     string `json:"text"`
	Channel  string `json:"channel,omitempty"`
	Username string `json:"username"`
}

func (n *notifier) postMessage(ctx context.Context, req *appkit.ActionRequest) error {
	if _, err := n.check(req.Account); err != nil {
		return err
	}
	text, err := required(req, textArg, MaxText)
	if err != nil {
		return err
	}
	if err := optional(req, channelArg, MaxTitle); err != nil {
		return err
	}
	u, err := n.resolveTarget(req, webhookURLArg, webhookURLField)
	if err != nil {
		return err
	}
	channel, _ := channelArg.Get(req.Args)
	return n.send(ctx, req.Action, u, message{Text: text, Channel: strings.TrimSpace(channel), Username: "Notify"}, "")
}

// issue is the body of create-issue.
type issue struct {
	Title  string   `json:"title"`
	Body   string   `json:"body,omitempty"`
	Labels []string `json:"labels"`
}

func (n *notifier) createIssue(ctx context.Context, req *appkit.ActionRequest) error {
	if _, err := n.check(req.Account); err != nil {
		return err
	}
	title, err := required(req, titleArg, MaxTitle)
	if err != nil {
		return err
	}
	if err := optional(req, bodyArg, MaxText); err != nil {
		return err
	}
	rawLabels, _ := labelsArg.Get(req.Args)
	labels, err := ParseLabels(rawLabels)
	if err != nil {
		return appkit.BadRequest("%s: labels: %v", req.Action, err)
	}
	u, err := n.resolveTarget(req, issuesURLArg, issuesURLField)
	if err != nil {
		return err
	}
	text, _ := bodyArg.Get(req.Args)
	token, _ := issuesTokenField.Get(req.Account)
	body := issue{Title: strings.TrimSpace(title), Body: text, Labels: labels}
	return n.send(ctx, req.Action, u, body, token)
}

// ParseLabels splits a comma-separated list of labels: blanks around labels
// are dropped, empty labels skipped, duplicates removed (first kept). At
// most [MaxLabels] labels of at most [MaxLabel] bytes, without control
// characters.
func ParseLabels(s string) ([]string, error) {
	out := []string{}
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		l := strings.TrimSpace(part)
		if l == "" || seen[l] {
			continue
		}
		if len(l) > MaxLabel {
			return nil, fmt.Errorf("label %.20q… is longer than %d bytes", l, MaxLabel)
		}
		if !utf8.ValidString(l) || strings.IndexFunc(l, unicode.IsControl) >= 0 {
			return nil, fmt.Errorf("label %q has control characters or invalid UTF-8", l)
		}
		seen[l] = true
		out = append(out, l)
		if len(out) > MaxLabels {
			return nil, fmt.Errorf("more than %d labels", MaxLabels)
		}
	}
	return out, nil
}

// send POSTs body as JSON to u and maps the answer to the action's result.
func (n *notifier) send(ctx context.Context, action string, u *url.URL, body any, bearer string) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("%s: encode the request: %w", action, err)
	}
	ctx, cancel := context.WithTimeout(ctx, n.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(payload))
	if err != nil {
		return appkit.BadRequest("%s: bad target URL", action)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	host := u.Host
	resp, err := n.client.Do(req)
	if err != nil {
		return n.transportError(ctx, action, host, err)
	}
	defer resp.Body.Close()
	snippet := readSnippet(resp.Body)
	// Drain a little more so that the connection can be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	status := fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	detail := ""
	if snippet != "" {
		detail = ": " + snippet
	}
	switch c := resp.StatusCode; {
	case c >= 200 && c < 300:
		return nil
	case c == http.StatusTooManyRequests || c == http.StatusBadGateway || c == http.StatusServiceUnavailable || c == http.StatusGatewayTimeout:
		return appkit.TryLaterAfter(fmt.Errorf("%s: %s answered %s, try later%s", action, host, status, detail), RetryAfter(resp.Header.Get("Retry-After"), time.Now()))
	case c == http.StatusUnauthorized || c == http.StatusForbidden:
		return appkit.InvalidAccount("%s: %s refused the credentials (%s)%s", action, host, status, detail)
	case c >= 400 && c < 500:
		return appkit.BadRequest("%s: %s refused the request (%s)%s", action, host, status, detail)
	case c >= 300 && c < 400:
		return appkit.NewError(http.StatusBadGateway, "%s: %s answered a redirect (%s); give the final address", action, host, status)
	}
	return appkit.NewError(http.StatusBadGateway, "%s: %s failed (%s)%s", action, host, status, detail)
}

// transportError explains a request that got no answer, without the URL
// (whose path may be a secret).
func (n *notifier) transportError(ctx context.Context, action, host string, err error) error {
	switch {
	case errors.Is(err, errBlocked):
		return appkit.BadRequest("%s: %s resolves to a private or local network address, which is not allowed", action, host)
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || isTimeout(err):
		return appkit.TryLater(fmt.Errorf("%s: %s did not answer within %v", action, host, n.cfg.Timeout))
	case errors.Is(err, context.Canceled):
		return err
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return appkit.BadRequest("%s: host %s not found", action, host)
	}
	return appkit.TryLater(fmt.Errorf("%s: cannot reach %s: %v", action, host, err))
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// readSnippet returns the start of a body as one clean line for an error
// message.
func readSnippet(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 512))
	s := strings.ToValidUTF8(string(b), "?")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > 200 {
		s = string([]rune(s)[:200]) + "…"
	}
	return s
}

// RetryAfter reads a Retry-After header (seconds or an HTTP date) as a
// duration, 0 when absent or invalid, at most one hour.
func RetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		if secs > 3600 {
			secs = 3600
		}
		d = time.Duration(secs) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return max(0, min(d, time.Hour))
}

// errBlocked refuses connections to non-public addresses.
var errBlocked = errors.New("connection to a non-public address refused")

// cgnat is the shared address space of carrier-grade NAT (RFC 6598).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// Public reports whether a connection to ip may be made by default.
func Public(ip netip.Addr) bool {
	ip = ip.Unmap()
	return ip.IsValid() && !ip.IsLoopback() && !ip.IsPrivate() && !ip.IsLinkLocalUnicast() &&
		!ip.IsLinkLocalMulticast() && !ip.IsInterfaceLocalMulticast() && !ip.IsMulticast() &&
		!ip.IsUnspecified() && !cgnat.Contains(ip)
}

func newClient(cfg Config) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if !cfg.AllowPrivateNetworks {
		// Checked on the resolved address of every connection, so a DNS
		// name cannot smuggle a private address in.
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !Public(ap.Addr()) {
				return errBlocked
			}
			return nil
		}
	}
	tr := &http.Transport{
		Proxy:                  nil, // a proxy would defeat the address check
		DialContext:            dialer.DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           32,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    5 * time.Second,
		ResponseHeaderTimeout:  cfg.Timeout,
		MaxResponseHeaderBytes: 64 << 10,
	}
	return &http.Client{
		Transport: tr, // the timeout is the context's, set per call in send
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}
