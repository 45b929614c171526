// Package auth holds the users, sign-in sessions, API tokens and rate limits
// of the workspace host.
//
// Everything lives in three tables of the store's database, which the
// store's migrations make: host_users (id, e-mail, bcrypt password hash),
// host_sessions (SHA-256 hash of the session id, user, expiry) and
// host_tokens (id, user, name, SHA-256 hash of the token, created and
// last-used times). Secrets (passwords,
// session ids, token values) are never stored or logged in clear: a token's
// value is shown once, when it is created. The fixed SQL is in queries.go,
// one small typed function per statement: it goes through the dialect's
// Rebind with bound values only, and the same statements run on SQLite and
// PostgreSQL (times are Unix milliseconds in BIGINT columns, hashes hex
// text).
package auth

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"golang.org/x/crypto/bcrypt"

	"github.com/appkitgo/appkit/internal/problems"
	"github.com/appkitgo/appkit/internal/store"
)

// Errors callers match with errors.Is.
var (
	// ErrInvalidCredentials: unknown e-mail or wrong password (which one is
	// not told).
	ErrInvalidCredentials = errors.New("auth: invalid e-mail or password")
	// ErrUnauthenticated: a missing, unknown or expired session or token.
	ErrUnauthenticated = errors.New("auth: not authenticated")
	// ErrNotFound: no such token (of this user).
	ErrNotFound = errors.New("auth: not found")
	// ErrInvalid: an argument that cannot be accepted (empty e-mail, a
	// token with white space, ...).
	ErrInvalid = errors.New("auth: invalid argument")
)

// Defaults of [Options].
const (
	DefaultSessionTTL = 7 * 24 * time.Hour
	// lastUsedPrecision: a token's last-used time is written at most this
	// often, so authenticating a request is a read, not a write.
	lastUsedPrecision = time.Minute
	// maxPassword is bcrypt's input limit.
	maxPassword = 72
	maxEmail    = 320
	maxName     = 200
	maxToken    = 512
)

// Options tune a [Service]; the zero value is the production setting.
// [Options.WithDefaults] fills in what is unset, and [New] validates the
// result.
type Options struct {
	// PasswordCost is the bcrypt cost; 0 means bcrypt.DefaultCost. Tests use
	// bcrypt.MinCost.
	PasswordCost int
	// SessionTTL is how long a sign-in lasts; 0 means DefaultSessionTTL
	// (at least a second).
	SessionTTL time.Duration
	// Now replaces the clock (tests); nil means time.Now.
	Now func() time.Time
	// MaxPasswordChecks bounds the password checks (and hashes) run at
	// once over the service, eight times as many more waiting (ErrBusy
	// beyond); 0 means DefaultPasswordChecks.
	MaxPasswordChecks int
	// Throttle delays sign-ins per account after failures (see
	// AccountThrottle); nil throttles nothing.
	Throttle *AccountThrottle
}

// WithDefaults returns a copy of o with every unset (zero) setting given
// its default: PasswordCost (bcrypt.DefaultCost), SessionTTL,
// MaxPasswordChecks (DefaultPasswordChecks) and Now. Set values are kept
// as they are, even invalid ones, for validate to refuse.
func (o Options) WithDefaults() Options {
	o.PasswordCost = cmp.Or(o.PasswordCost, bcrypt.DefaultCost)
	o.SessionTTL = cmp.Or(o.SessionTTL, DefaultSessionTTL)
	o.MaxPasswordChecks = cmp.Or(o.MaxPasswordChecks, DefaultPasswordChecks())
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// validate checks Options after WithDefaults and reports every problem at
// once, wrapped in ErrInvalid.
func (o Options) validate() error {
	var bad problems.List
	if o.PasswordCost < bcrypt.MinCost || o.PasswordCost > bcrypt.MaxCost {
		bad.Add("password cost %d (want %d to %d)", o.PasswordCost, bcrypt.MinCost, bcrypt.MaxCost)
	}
	if o.SessionTTL < time.Second {
		bad.Add("SessionTTL is %s, want at least 1s", o.SessionTTL)
	}
	if o.MaxPasswordChecks < 1 {
		bad.Add("MaxPasswordChecks is %d, want at least 1", o.MaxPasswordChecks)
	}
	return bad.Err(ErrInvalid)
}

// Service is the users, sessions and tokens store. It is safe for
// concurrent use.
type Service struct {
	db   *sql.DB
	d    store.Dialect
	cost int
	ttl  time.Duration
	now  func() time.Time

	cacheMu sync.Mutex
	cache   map[string]cachedAuth // token hash → last successful check

	dummyOnce sync.Once
	dummy     []byte // a hash compared against when the e-mail is unknown

	slots    *passwordSlots
	throttle *AccountThrottle
}

// User is a person who can sign in.
type User struct {
	ID      string    `json:"id"`
	Email   string    `json:"email"`
	Created time.Time `json:"created-at"`
}

// Token is an API token as listed: never its value.
type Token struct {
	ID       string     `json:"id"`
	Name     string     `json:"name"`
	UserID   string     `json:"-"`
	Created  time.Time  `json:"created-at"`
	LastUsed *time.Time `json:"last-used-at"`
}

// New returns the service over db, the database of a store (store.Open
// made its tables), whose dialect is d.
func New(_ context.Context, db *sql.DB, d store.Dialect, opts Options) (*Service, error) {
	if db == nil || d == nil {
		return nil, errors.New("auth: New needs a database and its dialect")
	}
	opts = opts.WithDefaults()
	if err := opts.validate(); err != nil {
		return nil, err
	}
	return &Service{db: db, d: d, cost: opts.PasswordCost, ttl: opts.SessionTTL, now: opts.Now,
		slots: newPasswordSlots(opts.MaxPasswordChecks), throttle: opts.Throttle}, nil
}

func (s *Service) millis() int64 { return s.now().UnixMilli() }

// Hash returns the hex SHA-256 of a secret: the stored form of tokens and
// session ids (they are long random strings, so a fast hash is enough).
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// randomString returns n random bytes, base64url without padding.
func randomString(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// GeneratePassword returns a random password of 20 characters.
func GeneratePassword() string { return randomString(15) }

func normalizeEmail(email string) (string, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" || len(email) > maxEmail || !strings.Contains(email, "@") {
		return "", fmt.Errorf("%w: e-mail %q", ErrInvalid, email)
	}
	return email, nil
}

func checkPassword(p string) error {
	if p == "" || len(p) > maxPassword {
		return fmt.Errorf("%w: a password has 1 to %d bytes", ErrInvalid, maxPassword)
	}
	return nil
}

// CreateUser adds a user with a bcrypt-hashed password.
func (s *Service) CreateUser(ctx context.Context, email, password string) (User, error) {
	email, err := normalizeEmail(email)
	if err != nil {
		return User{}, err
	}
	if err := checkPassword(password); err != nil {
		return User{}, err
	}
	hash, err := s.hashPassword(ctx, password)
	if err != nil {
		return User{}, err
	}
	u := User{ID: uuid.NewString(), Email: email, Created: time.UnixMilli(s.millis()).UTC()}
	if err := s.on(s.db).insertUser(ctx, u, hash); err != nil {
		return User{}, fmt.Errorf("auth: create user %s: %w", email, err)
	}
	return u, nil
}

// UserByID returns one user.
func (s *Service) UserByID(ctx context.Context, id string) (User, error) {
	return s.on(s.db).userByID(ctx, id)
}

// Login checks an e-mail and password and opens a session; the returned
// session id goes into the cookie and is stored only hashed. The time spent
// does not tell whether the e-mail exists. An account delayed by the
// service's AccountThrottle gets a *ThrottledError, and ErrBusy comes when
// too many password checks run or wait over the service: in both cases no
// password was checked.
func (s *Service) Login(ctx context.Context, email, password string) (sessionID string, u User, err error) {
	email, err = normalizeEmail(email)
	if err != nil || len(password) > maxPassword {
		if err := s.spendCompare(ctx, password); err != nil {
			return "", User{}, err
		}
		return "", User{}, ErrInvalidCredentials
	}
	done, retry := s.throttle.begin(email)
	if done == nil {
		return "", User{}, &ThrottledError{RetryAfter: retry}
	}
	how := attemptNone
	defer func() { done(how) }()
	u, hash, err := s.on(s.db).userWithHash(ctx, email)
	if errors.Is(err, sql.ErrNoRows) {
		if err := s.spendCompare(ctx, password); err != nil {
			return "", User{}, err
		}
		how = attemptFailed
		return "", User{}, ErrInvalidCredentials
	}
	if err != nil {
		return "", User{}, fmt.Errorf("auth: login: %w", err)
	}
	match, err := s.comparePassword(ctx, hash, password)
	if err != nil {
		return "", User{}, err
	}
	if !match {
		how = attemptFailed
		return "", User{}, ErrInvalidCredentials
	}
	how = attemptOK
	now := s.millis()
	sessionID = randomString(32)
	if err := s.on(s.db).deleteExpiredSessions(ctx, now); err != nil {
		return "", User{}, fmt.Errorf("auth: login: expire sessions: %w", err)
	}
	if err := s.on(s.db).insertSession(ctx, Hash(sessionID), u.ID, now, now+s.ttl.Milliseconds()); err != nil {
		return "", User{}, fmt.Errorf("auth: login: %w", err)
	}
	return sessionID, u, nil
}

// Minimum strength of the secrets an operator chooses (the host's --token
// and --admin-password): a short token or password can be guessed.
const (
	// MinTokenLength is the least number of characters of an operator's
	// token.
	MinTokenLength = 16
	// MinPasswordLength is the least number of characters of an operator's
	// admin password.
	MinPasswordLength = 12
)

// ValidateTokenValue reports whether a token value chosen by an operator
// (the host's --token) is acceptable: MinTokenLength to 512 printable
// characters without white space.
func ValidateTokenValue(value string) error {
	if len(value) > maxToken || strings.ContainsFunc(value, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return fmt.Errorf("%w: a token has %d to %d printable characters without spaces", ErrInvalid, MinTokenLength, maxToken)
	}
	if n := utf8.RuneCountInString(value); n < MinTokenLength {
		return fmt.Errorf("%w: the token has %d characters; use at least %d (for example the output of openssl rand -hex 16)", ErrInvalid, n, MinTokenLength)
	}
	return nil
}

// ValidatePassword reports whether a password chosen by an operator (the
// host's --admin-password) is acceptable: MinPasswordLength characters up
// to 72 bytes (bcrypt's limit).
func ValidatePassword(password string) error {
	if n := utf8.RuneCountInString(password); n < MinPasswordLength {
		return fmt.Errorf("%w: the password has %d characters; use at least %d", ErrInvalid, n, MinPasswordLength)
	}
	return checkPassword(password)
}

// SessionTTL is how long a new session lasts.
func (s *Service) SessionTTL() time.Duration { return s.ttl }

// SessionCookie is the cookie named name that holds the session id sid
// for SessionTTL, or, with sid "", the cookie that clears it; secure
// (a request that came over TLS) sets Secure.
func (s *Service) SessionCookie(name, sid string, secure bool) *http.Cookie {
	c := &http.Cookie{Name: name, Value: sid, Path: "/", HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode}
	if sid == "" {
		c.MaxAge = -1
	} else {
		c.MaxAge, c.Expires = int(s.ttl/time.Second), s.now().Add(s.ttl)
	}
	return c
}

// SessionUser returns the user of a live session.
func (s *Service) SessionUser(ctx context.Context, sessionID string) (User, error) {
	if sessionID == "" || len(sessionID) > maxToken {
		return User{}, ErrUnauthenticated
	}
	u, err := s.on(s.db).sessionUser(ctx, Hash(sessionID), s.millis())
	if errors.Is(err, ErrNotFound) {
		return User{}, ErrUnauthenticated
	}
	return u, err
}

// Logout ends a session; ending an unknown one is no error.
func (s *Service) Logout(ctx context.Context, sessionID string) error {
	if err := s.on(s.db).deleteSession(ctx, Hash(sessionID)); err != nil {
		return fmt.Errorf("auth: logout: %w", err)
	}
	return nil
}

// CreateToken makes a new random API token (32 random bytes, base64url) for
// a user. The value is returned once and stored only as its hash.
func (s *Service) CreateToken(ctx context.Context, userID, name string) (t Token, value string, err error) {
	value = randomString(32)
	t, err = s.insertToken(ctx, userID, value, name)
	return t, value, err
}

// RegisterToken stores a token value chosen by the operator (the host's
// --token) for a user. It is idempotent: when a token with the same value
// exists it is returned unchanged (whichever user holds it).
func (s *Service) RegisterToken(ctx context.Context, userID, value, name string) (Token, error) {
	if err := ValidateTokenValue(value); err != nil {
		return Token{}, err
	}
	if t, err := s.tokenByHash(ctx, Hash(value)); err == nil {
		return t, nil
	} else if !errors.Is(err, ErrNotFound) {
		return Token{}, err
	}
	t, err := s.insertToken(ctx, userID, value, name)
	if err != nil {
		// Another host process may have registered it in between.
		if t2, err2 := s.tokenByHash(ctx, Hash(value)); err2 == nil {
			return t2, nil
		}
	}
	return t, err
}

func (s *Service) insertToken(ctx context.Context, userID, value, name string) (Token, error) {
	name = strings.TrimSpace(name)
	if len(name) > maxName {
		return Token{}, fmt.Errorf("%w: a token name has at most %d bytes", ErrInvalid, maxName)
	}
	t := Token{ID: uuid.NewString(), Name: name, UserID: userID, Created: time.UnixMilli(s.millis()).UTC()}
	if err := s.on(s.db).insertToken(ctx, t, Hash(value)); err != nil {
		return Token{}, fmt.Errorf("auth: create token: %w", err)
	}
	return t, nil
}

func (s *Service) tokenByHash(ctx context.Context, hash string) (Token, error) {
	t, err := s.on(s.db).tokenByHash(ctx, hash)
	if errors.Is(err, sql.ErrNoRows) {
		return Token{}, ErrNotFound
	}
	if err != nil {
		return Token{}, fmt.Errorf("auth: read token: %w", err)
	}
	return t, nil
}

// ListTokens returns a user's tokens, oldest first.
func (s *Service) ListTokens(ctx context.Context, userID string) ([]Token, error) {
	out, err := s.on(s.db).tokensOf(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("auth: list tokens: %w", err)
	}
	return out, nil
}

// DeleteToken removes one of a user's tokens; ErrNotFound when the user has
// no token with that id.
func (s *Service) DeleteToken(ctx context.Context, userID, tokenID string) error {
	defer s.forget()
	n, err := s.on(s.db).deleteToken(ctx, userID, tokenID)
	if err != nil {
		return fmt.Errorf("auth: delete token: %w", err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// AuthCacheTTL is how long a successful token check is remembered in memory.
// Deleting a token through this Service forgets at once; another host process
// sharing the database notices a deletion within this time.
const AuthCacheTTL = 2 * time.Second

// maxCached bounds the authentication cache; it is emptied when full.
const maxCached = 4096

type cachedAuth struct {
	user    User
	token   Token
	expires time.Time
}

// Authenticate returns the token and its user for a token value, and
// records when it was last used (at most once a minute). Successful checks
// are cached for AuthCacheTTL.
func (s *Service) Authenticate(ctx context.Context, value string) (User, Token, error) {
	if value == "" || len(value) > maxToken {
		return User{}, Token{}, ErrUnauthenticated
	}
	hash := Hash(value)
	now := s.now()
	s.cacheMu.Lock()
	c, hit := s.cache[hash]
	s.cacheMu.Unlock()
	if hit && now.Before(c.expires) {
		return c.user, c.token, nil
	}
	u, t, err := s.on(s.db).tokenWithUser(ctx, hash)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, Token{}, ErrUnauthenticated
	}
	if err != nil {
		return User{}, Token{}, fmt.Errorf("auth: authenticate: %w", err)
	}
	if t.LastUsed == nil || now.Sub(*t.LastUsed) >= lastUsedPrecision {
		if err := s.on(s.db).touchToken(ctx, t.ID, now.UnixMilli()); err != nil {
			return User{}, Token{}, fmt.Errorf("auth: record token use: %w", err)
		}
		lu := time.UnixMilli(now.UnixMilli()).UTC()
		t.LastUsed = &lu
	}
	s.cacheMu.Lock()
	if s.cache == nil || len(s.cache) >= maxCached {
		s.cache = map[string]cachedAuth{}
	}
	s.cache[hash] = cachedAuth{user: u, token: t, expires: now.Add(AuthCacheTTL)}
	s.cacheMu.Unlock()
	return u, t, nil
}

// forget empties the authentication cache (after a token is deleted).
func (s *Service) forget() {
	s.cacheMu.Lock()
	s.cache = nil
	s.cacheMu.Unlock()
}
