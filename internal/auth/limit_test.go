package auth

import (
	"fmt"
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
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
	if n := l.Len(); n > 1025 {
		t.Fatalf("%d buckets held; idle ones should have been swept", n)
	}
	c.Advance(2 * time.Minute)
	l.Allow("new")
	if n := l.Len(); n != 1 {
		t.Fatalf("%d buckets after every other key idled for two minutes, want 1", n)
	}
}
