package auth

import (
	"fmt"
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		rate      float64
		opts      LimiterOptions
		wantBurst int
	}{
		{"service default", DefaultRate, LimiterOptions{}, 3},
		{"fractional rate rounds the burst up", 0.5, LimiterOptions{}, 1},
		{"explicit burst", 3, LimiterOptions{Burst: 10}, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			tc.opts.Now = c.Now
			l := NewLimiter(tc.rate, tc.opts)
			if l.Burst() != tc.wantBurst {
				t.Fatalf("burst = %d, want %d", l.Burst(), tc.wantBurst)
			}
			for i := 0; i < tc.wantBurst; i++ {
				if ok, _ := l.Allow("a"); !ok {
					t.Fatalf("request %d of the burst refused", i+1)
				}
			}
			ok, retry := l.Allow("a")
			if ok || retry <= 0 {
				t.Fatalf("request %d allowed (retry %v)", tc.wantBurst+1, retry)
			}
			if ok, _ := l.Allow("b"); !ok {
				t.Fatal("another key is limited by the first one")
			}
			c.Advance(retry)
			if ok, _ := l.Allow("a"); !ok {
				t.Fatalf("refused after waiting the advertised %v", retry)
			}
		})
	}
}

func TestLimiterOffAndWorkspace(t *testing.T) {
	t.Parallel()
	var off *Limiter
	for i := 0; i < 100; i++ {
		if ok, _ := off.Allow("x"); !ok {
			t.Fatal("nil limiter refused")
		}
	}
	if NewLimiter(0, LimiterOptions{}) != nil {
		t.Fatal("rate 0 must turn limits off")
	}
	c := newClock()
	l := NewLimiter(3, LimiterOptions{Workspace: 7, Now: c.Now})
	allowed := 0
	for k := 0; k < 5; k++ {
		for i := 0; i < 3; i++ {
			if ok, _ := l.Allow(fmt.Sprint("key", k)); ok {
				allowed++
			}
		}
	}
	if allowed != 7 {
		t.Fatalf("workspace limit let %d immediate requests through, want 7", allowed)
	}
}

func TestLimiterEvictsIdleBuckets(t *testing.T) {
	t.Parallel()
	c := newClock()
	l := NewLimiter(3, LimiterOptions{Now: c.Now})
	// 5000 keys, 100 new ones per second: each bucket is full again a third
	// of a second after its one request, so sweeping keeps the map small.
	for i := 0; i < 5000; i++ {
		if i%100 == 0 {
			c.Advance(time.Second)
		}
		l.Allow(fmt.Sprint("k", i))
	}
	if n := l.held(); n > 1025 {
		t.Fatalf("%d buckets held; idle ones should have been swept", n)
	}
	c.Advance(2 * time.Minute)
	l.Allow("new")
	if n := l.held(); n != 1 {
		t.Fatalf("%d buckets after every other key idled for two minutes, want 1", n)
	}
}

// TestWorkspaceRefusalSpendsNoKeyAllowance: a request refused by the
// workspace-wide bucket leaves the key's own bucket as it was, and the
// refusal says which limit was hit.
func TestWorkspaceRefusalSpendsNoKeyAllowance(t *testing.T) {
	t.Parallel()
	c := newClock()
	l := NewLimiter(3, LimiterOptions{Workspace: 2, Now: c.Now})
	for i := 0; i < 2; i++ {
		if d := l.Take(fmt.Sprint("other", i)); !d.OK {
			t.Fatalf("workspace request %d refused", i+1)
		}
	}
	// The workspace bucket is empty: "a" is refused again and again by it.
	for i := 0; i < 10; i++ {
		d := l.Take("a")
		if d.OK || !d.Workspace || d.RetryAfter <= 0 {
			t.Fatalf("attempt %d: %+v, want a workspace refusal", i+1, d)
		}
	}
	// Once the workspace has room, "a" still has its whole burst of 3: the
	// refusals above took nothing from it. A per-key refusal then names the
	// key's own limit.
	c.Advance(10 * time.Second)
	for i := 0; i < 2; i++ {
		if d := l.Take("a"); !d.OK {
			t.Fatalf("request %d of a's burst refused: %+v", i+1, d)
		}
	}
	c.Advance(time.Second) // the workspace refills 2, "a" gains 3 but holds at most 3
	if d := l.Take("a"); !d.OK {
		t.Fatalf("third request of a's burst refused: %+v", d)
	}
	l2 := NewLimiter(3, LimiterOptions{Workspace: 100, Now: c.Now})
	for i := 0; i < 3; i++ {
		l2.Take("b")
	}
	if d := l2.Take("b"); d.OK || d.Workspace {
		t.Fatalf("fourth immediate request of b: %+v, want a refusal by b's own limit", d)
	}
}

func TestBlocked(t *testing.T) {
	t.Parallel()
	c := newClock()
	l := NewLimiter(1, LimiterOptions{Burst: 2, Now: c.Now})
	if b, _ := l.Blocked("ip"); b {
		t.Fatal("an unknown key is blocked")
	}
	l.Allow("ip")
	if b, _ := l.Blocked("ip"); b {
		t.Fatal("blocked with one request of two left")
	}
	l.Allow("ip")
	b, retry := l.Blocked("ip")
	if !b || retry <= 0 || retry > time.Second {
		t.Fatalf("after the burst: blocked %v, retry %v", b, retry)
	}
	if b, _ := l.Blocked("ip"); !b {
		t.Fatal("Blocked spent or restored a request")
	}
	c.Advance(retry)
	if b, _ := l.Blocked("ip"); b {
		t.Fatalf("still blocked after the advertised %v", retry)
	}
}
