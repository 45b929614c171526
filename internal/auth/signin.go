package auth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// Bounds of signing in: per account, a growing delay after failures (see
// [AccountThrottle]); host-wide, the password checks running at once.
var (
	// ErrThrottled: the account had too many failed sign-ins lately; the
	// error is a *ThrottledError saying when to try again. Nothing was
	// checked.
	ErrThrottled = errors.New("auth: too many failed sign-ins for this account")
	// ErrBusy: too many password checks are running or waiting host-wide;
	// try again in a moment. Nothing was checked.
	ErrBusy = errors.New("auth: too many sign-ins in progress")
)

// ThrottledError is [ErrThrottled] with the time to wait.
type ThrottledError struct {
	// RetryAfter is when the account may try again.
	RetryAfter time.Duration
}

func (e *ThrottledError) Error() string {
	return fmt.Sprintf("%s: try again in %d s", ErrThrottled.Error(), int(math.Ceil(e.RetryAfter.Seconds())))
}

// Is makes errors.Is(err, ErrThrottled) true.
func (e *ThrottledError) Is(target error) bool { return target == ErrThrottled }

// Defaults of [AccountThrottleOptions].
const (
	DefaultFreeFailures = 5
	DefaultFirstDelay   = time.Second
	DefaultMaxDelay     = 30 * time.Second
	DefaultForgetAfter  = 15 * time.Minute
	DefaultMaxAccounts  = 10_000
)

// AccountThrottleOptions configure [NewAccountThrottle]; zero values take
// the defaults.
type AccountThrottleOptions struct {
	// FreeFailures are the failed sign-ins an account may have before the
	// delay starts.
	FreeFailures int
	// FirstDelay is the delay after FreeFailures failures; it doubles with
	// each further failure, up to MaxDelay.
	FirstDelay, MaxDelay time.Duration
	// ForgetAfter is how long after its last failure an account starts
	// again from nothing.
	ForgetAfter time.Duration
	// MaxAccounts bounds the accounts followed at once.
	MaxAccounts int
	// Now replaces the clock (tests).
	Now func() time.Time
}

// AccountThrottle slows down guessing one account's password from any
// number of addresses: after FreeFailures failed sign-ins, the account's
// next attempt must wait FirstDelay, then twice as long after each
// further failure, up to MaxDelay; an attempt before then is refused
// without its password being checked. It is a delay, never a lock-out:
// the right password, sent once the delay has passed, signs in and clears
// the account's failures. One password check of an account runs at a
// time (another attempt meanwhile waits a second), so that attempts sent
// at once cannot outrun the count. Accounts are followed by their
// normalized e-mail, known or not (so that the delay does not tell
// whether a user exists); a nil *AccountThrottle throttles nothing. It is
// safe for concurrent use.
type AccountThrottle struct {
	o AccountThrottleOptions

	mu       sync.Mutex
	accounts map[string]*accountState
}

type accountState struct {
	failures int
	last     time.Time // of the last failure
	next     time.Time // the earliest next attempt
	busy     bool      // a password check is running
}

// NewAccountThrottle returns a throttle with o's settings.
func NewAccountThrottle(o AccountThrottleOptions) *AccountThrottle {
	if o.FreeFailures <= 0 {
		o.FreeFailures = DefaultFreeFailures
	}
	if o.FirstDelay <= 0 {
		o.FirstDelay = DefaultFirstDelay
	}
	if o.MaxDelay < o.FirstDelay {
		o.MaxDelay = max(DefaultMaxDelay, o.FirstDelay)
	}
	if o.ForgetAfter <= 0 {
		o.ForgetAfter = DefaultForgetAfter
	}
	if o.MaxAccounts <= 0 {
		o.MaxAccounts = DefaultMaxAccounts
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &AccountThrottle{o: o, accounts: map[string]*accountState{}}
}

// attempt is how a sign-in attempt ended, for the throttle.
type attempt int

const (
	attemptNone   attempt = iota // nothing was checked (an error, busy)
	attemptFailed                // a wrong password or an unknown e-mail
	attemptOK                    // signed in
)

// begin starts an attempt on account: it returns done, to call with how
// the attempt ended, or nil and how long to wait.
func (t *AccountThrottle) begin(account string) (done func(attempt), retry time.Duration) {
	if t == nil {
		return func(attempt) {}, 0
	}
	now := t.o.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	a := t.accounts[account]
	if a != nil && !a.busy && now.Sub(a.last) >= t.o.ForgetAfter {
		delete(t.accounts, account)
		a = nil
	}
	if a == nil {
		if len(t.accounts) >= t.o.MaxAccounts {
			t.sweep(now)
		}
		if len(t.accounts) >= t.o.MaxAccounts {
			// Full of accounts with failures: this one goes unfollowed
			// (the per-address limit and the host-wide password checks
			// still bound it).
			return func(attempt) {}, 0
		}
		a = &accountState{}
		t.accounts[account] = a
	}
	if a.busy {
		return nil, time.Second
	}
	if d := a.next.Sub(now); d > 0 {
		return nil, d
	}
	a.busy = true
	return func(how attempt) { t.end(account, a, how) }, 0
}

// end records how an attempt ended.
func (t *AccountThrottle) end(account string, a *accountState, how attempt) {
	now := t.o.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	a.busy = false
	switch how {
	case attemptOK:
		if t.accounts[account] == a {
			delete(t.accounts, account)
		}
	case attemptFailed:
		a.failures++
		a.last = now
		if n := a.failures - t.o.FreeFailures; n >= 0 {
			d := t.o.MaxDelay
			if n < 30 {
				d = min(t.o.FirstDelay<<n, t.o.MaxDelay)
			}
			a.next = now.Add(d)
		}
	}
}

// sweep forgets the accounts whose failures are old, then, when that is
// not enough, those still under the free failures; it is called with
// t.mu held.
func (t *AccountThrottle) sweep(now time.Time) {
	for k, a := range t.accounts {
		if !a.busy && now.Sub(a.last) >= t.o.ForgetAfter {
			delete(t.accounts, k)
		}
	}
	if len(t.accounts) < t.o.MaxAccounts {
		return
	}
	for k, a := range t.accounts {
		if !a.busy && a.failures < t.o.FreeFailures {
			delete(t.accounts, k)
		}
	}
}

// passwordSlots bounds the bcrypt work of the host: at most cap(run)
// password checks or hashes run at once, and at most waitPerSlot times as
// many more wait for one; beyond, ErrBusy at once.
type passwordSlots struct {
	run    chan struct{}
	inside atomic.Int64
	limit  int64
}

// waitPerSlot is how many password checks may wait per running one.
const waitPerSlot = 8

// DefaultPasswordChecks is the number of password checks run at once by
// default: half the CPUs the process may use, at least one, so that
// sign-ins cannot take every CPU from the other requests.
func DefaultPasswordChecks() int { return max(1, runtime.GOMAXPROCS(0)/2) }

func newPasswordSlots(n int) *passwordSlots {
	if n <= 0 {
		n = DefaultPasswordChecks()
	}
	return &passwordSlots{run: make(chan struct{}, n), limit: int64(n * (1 + waitPerSlot))}
}

// do runs fn in a slot, waiting for one while ctx lasts; ErrBusy when too
// many wait or ctx ends first.
func (p *passwordSlots) do(ctx context.Context, fn func()) error {
	defer p.inside.Add(-1)
	if p.inside.Add(1) > p.limit {
		return ErrBusy
	}
	select {
	case p.run <- struct{}{}:
	case <-ctx.Done():
		return ErrBusy
	}
	defer func() { <-p.run }()
	fn()
	return nil
}

// comparePassword tells whether password is the one of hash, in a
// password slot.
func (s *Service) comparePassword(ctx context.Context, hash, password string) (match bool, err error) {
	err = s.slots.do(ctx, func() { match = bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil })
	return match, err
}

// hashPassword hashes password at the service's cost, in a password slot.
func (s *Service) hashPassword(ctx context.Context, password string) (string, error) {
	var hash []byte
	var herr error
	if err := s.slots.do(ctx, func() { hash, herr = bcrypt.GenerateFromPassword([]byte(password), s.cost) }); err != nil {
		return "", err
	}
	if herr != nil {
		return "", fmt.Errorf("auth: hash password: %w", herr)
	}
	return string(hash), nil
}

// spendCompare spends the time of a password check, so that an unknown
// e-mail answers as slowly as a wrong password.
func (s *Service) spendCompare(ctx context.Context, password string) error {
	s.dummyOnce.Do(func() {
		s.dummy, _ = bcrypt.GenerateFromPassword([]byte("not a password of anyone"), s.cost)
	})
	_, err := s.comparePassword(ctx, string(s.dummy), password)
	return err
}
