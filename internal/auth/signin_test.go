package auth

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// An account's failures cost nothing at first, then each further one
// doubles the wait before the next attempt, up to the maximum; an attempt
// meanwhile is refused, one check of an account runs at a time, a sign-in
// clears the failures and old failures are forgotten.
func TestAccountThrottle(t *testing.T) {
	t.Parallel()
	c := newClock()
	th := NewAccountThrottle(AccountThrottleOptions{Now: c.Now})
	fail := func(account string) {
		t.Helper()
		done, retry := th.begin(account)
		if done == nil {
			t.Fatalf("an attempt on %s refused (retry %v)", account, retry)
		}
		done(attemptFailed)
	}
	for range DefaultFreeFailures - 1 {
		fail("ann@example.com")
	}
	// One check at a time: a second attempt while one runs waits.
	done, _ := th.begin("ann@example.com")
	if d2, retry := th.begin("ann@example.com"); d2 != nil || retry != time.Second {
		t.Fatalf("a second attempt at once: admitted %v, retry %v", d2 != nil, retry)
	}
	done(attemptFailed) // the 5th failure: the delay starts
	want := DefaultFirstDelay
	for range 8 {
		if d, retry := th.begin("ann@example.com"); d != nil || retry != want {
			t.Fatalf("an attempt right after a failure: admitted %v, retry %v, want %v", d != nil, retry, want)
		}
		if d, _ := th.begin("bob@example.com"); d == nil {
			t.Fatal("another account is delayed")
		} else {
			d(attemptNone)
		}
		c.Advance(want)
		fail("ann@example.com")
		want = min(2*want, DefaultMaxDelay)
	}
	if want != DefaultMaxDelay {
		t.Fatalf("the delay grew to %v, want at most %v", want, DefaultMaxDelay)
	}
	// Not a lock-out: once the delay has passed, an attempt is checked,
	// and a sign-in clears the failures.
	c.Advance(DefaultMaxDelay)
	done, _ = th.begin("ann@example.com")
	if done == nil {
		t.Fatal("an attempt after the delay is refused")
	}
	done(attemptOK)
	for range DefaultFreeFailures {
		fail("ann@example.com")
	}
	// Failures older than ForgetAfter are forgotten.
	c.Advance(DefaultForgetAfter)
	for range DefaultFreeFailures {
		fail("ann@example.com")
	}
	if th.held() != 2 {
		t.Errorf("%d accounts followed", th.held())
	}
}

// The throttle follows a bounded number of accounts: when full, the ones
// whose failures are old, then those under the free failures, make room;
// an account that keeps failing is kept.
func TestAccountThrottleBounded(t *testing.T) {
	t.Parallel()
	c := newClock()
	th := NewAccountThrottle(AccountThrottleOptions{Now: c.Now, MaxAccounts: 10})
	for range DefaultFreeFailures {
		done, _ := th.begin("target@example.com")
		done(attemptFailed)
	}
	for i := range 50 {
		done, _ := th.begin(fmt.Sprintf("spray-%d@example.com", i))
		if done == nil {
			t.Fatalf("spray %d refused", i)
		}
		done(attemptFailed)
	}
	if th.held() > 10 {
		t.Fatalf("%d accounts followed", th.held())
	}
	if d, retry := th.begin("target@example.com"); d != nil || retry <= 0 {
		t.Fatal("the account under attack was forgotten by a spray of others")
	}
}

// Password checks run in a bounded number of slots: with all taken and
// the queue full, a check is refused at once (ErrBusy); one whose request
// ends while it waits is refused too.
func TestPasswordSlots(t *testing.T) {
	t.Parallel()
	p := newPasswordSlots(1)
	running, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = p.do(context.Background(), func() {
			close(running)
			<-release
		})
	}()
	<-running
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	if err := p.do(ctx, func() { ran = true }); !errors.Is(err, ErrBusy) || ran {
		t.Fatalf("a check whose request ended while waiting: %v, ran %v", err, ran)
	}
	p.inside.Add(p.limit - 1) // the slot's holder and a full queue
	if err := p.do(context.Background(), func() { ran = true }); !errors.Is(err, ErrBusy) || ran {
		t.Fatalf("a check beyond the queue: %v, ran %v", err, ran)
	}
	p.inside.Add(-(p.limit - 1))
	close(release)
	if err := p.do(context.Background(), func() { ran = true }); err != nil || !ran {
		t.Fatalf("a check with a free slot: %v, ran %v", err, ran)
	}
	if n := p.inside.Load(); n != 0 {
		t.Errorf("%d checks left inside", n)
	}
}

// Login is throttled per account whatever the address: after 5 wrong
// passwords (or an unknown e-mail tried 5 times, alike) the next attempt
// is refused without a check, even with the right password; once the
// delay has passed the right password signs in. A service whose password
// checks are all taken answers ErrBusy and counts nothing.
func TestLoginThrottledPerAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	eachDB(t, func(t *testing.T, tdb testDB) {
		c := newClock()
		s, err := New(ctx, tdb.db, tdb.d, Options{PasswordCost: 4, Now: c.Now, Throttle: NewAccountThrottle(AccountThrottleOptions{Now: c.Now})})
		if err != nil {
			t.Fatal(err)
		}
		createUser(t, s, "ann@example.com", "correct horse")
		for _, email := range []string{"ann@example.com", "nobody@example.com"} {
			for i := range DefaultFreeFailures {
				if _, _, err := s.Login(ctx, email, "wrong"); !errors.Is(err, ErrInvalidCredentials) {
					t.Fatalf("%s, wrong password %d: %v", email, i+1, err)
				}
			}
			var te *ThrottledError
			if _, _, err := s.Login(ctx, email, "correct horse"); !errors.As(err, &te) || !errors.Is(err, ErrThrottled) || te.RetryAfter != DefaultFirstDelay {
				t.Fatalf("%s right after 5 failures: %v", email, err)
			}
		}
		// Another account is not delayed.
		createUser(t, s, "bob@example.com", "bob's password")
		login(t, s, "bob@example.com", "bob's password")
		c.Advance(DefaultFirstDelay)
		if _, _, err := s.Login(ctx, "ANN@example.com", "correct horse"); err != nil {
			t.Fatalf("the right password after the delay: %v", err)
		}
		// The failures were cleared.
		if _, _, err := s.Login(ctx, "ann@example.com", "wrong"); !errors.Is(err, ErrInvalidCredentials) {
			t.Fatalf("a failure after signing in: %v", err)
		}
		// Every slot taken and the queue full: busy, nothing counted.
		s.slots.inside.Add(s.slots.limit)
		for range DefaultFreeFailures + 1 {
			if _, _, err := s.Login(ctx, "bob@example.com", "wrong"); !errors.Is(err, ErrBusy) {
				t.Fatalf("with every password check taken: %v", err)
			}
		}
		s.slots.inside.Add(-s.slots.limit)
		login(t, s, "bob@example.com", "bob's password")
	})
}
