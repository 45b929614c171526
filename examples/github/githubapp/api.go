package githubapp

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/upstream"
)

// MaxWait bounds the wait answered for a rate limit (a reset further away
// is answered as this).
const MaxWait = time.Hour

// ErrRateLimited is wrapped by the error of a call not made because
// GitHub's rate limit for the account is exhausted until a known reset.
var ErrRateLimited = errors.New("GitHub's rate limit is exhausted")

// session is the upstream client bound to one account, with the account's
// rate-limit reset remembered: until it, no call is made.
type session struct {
	app *App
	s   *upstream.Session
	key [32]byte // a hash of the credential
}

// session binds the app's GitHub client to an account: its token, or its
// OAuth 2 tokens.
func (a *App) session(acct appkit.Account) (*session, error) {
	c, cred := a.token, acct.String("token")
	if acct.Auth() == "oauth2" || cred == "" {
		c, cred = a.oauth2, acct.String("access_token")
	}
	if cred == "" || c == nil {
		return nil, appkit.InvalidAccount("the account has no GitHub token")
	}
	return &session{app: a, s: c.For(acct), key: sha256.Sum256([]byte(cred))}, nil
}

// get reads one answer of path into out.
func (c *session) get(ctx context.Context, path string, out any) error {
	if err := c.limited(); err != nil {
		return err
	}
	_, err := c.s.Do(ctx, upstream.Request{Path: path}, out)
	return c.note(err)
}

// fetch reads one page of a list at pos (nil: its first page, path), paged
// by the Link header; the cursor of the next page is nil at the end.
func fetch[T any](ctx context.Context, c *session, path string, pos *upstream.Cursor) ([]T, *upstream.Cursor, error) {
	if err := c.limited(); err != nil {
		return nil, nil, err
	}
	f, err := upstream.Fetch[T](ctx, c.s, upstream.LinkHeader(), upstream.Request{Path: path}, pos)
	if err = c.note(err); err != nil {
		return nil, nil, err
	}
	return f.Items, f.Next, nil
}

// limited answers tryLater while the account's rate limit is exhausted.
func (c *session) limited() error {
	now := c.app.now()
	c.app.limits.mu.Lock()
	until := c.app.limits.until[c.key]
	c.app.limits.mu.Unlock()
	if wait := until.Sub(now); wait > 0 {
		return appkit.TryLaterAfter(fmt.Errorf("%w until %s", ErrRateLimited, until.UTC().Format(time.RFC3339)), wait)
	}
	return nil
}

// note remembers the reset of a rate-limited answer.
func (c *session) note(err error) error {
	var se *upstream.StatusError
	if !errors.Is(err, upstream.ErrRateLimited) || !errors.As(err, &se) {
		return err
	}
	now := c.app.now()
	l := &c.app.limits
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.until == nil {
		l.until = map[[32]byte]time.Time{}
	}
	for k, t := range l.until { // forget resets that passed
		if !t.After(now) {
			delete(l.until, k)
		}
	}
	l.until[c.key] = now.Add(max(se.Wait, time.Second))
	return err
}

// limits remembers, per credential (by its hash), until when GitHub's rate
// limit is exhausted.
type limits struct {
	mu    sync.Mutex
	until map[[32]byte]time.Time
}
