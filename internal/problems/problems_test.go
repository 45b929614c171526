package problems_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/problems"
)

var errConfig = errors.New("bad config")

func TestList(t *testing.T) {
	t.Parallel()
	var l problems.List
	if err := l.Err(errConfig); err != nil {
		t.Fatalf("empty list: %v", err)
	}
	l.Add("Store is required")
	l.Add("MaxBody is %d, want more than 0", -1)
	l.Add("path: %w", fs.ErrNotExist)
	err := l.Err(errConfig)
	if !errors.Is(err, errConfig) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err %v: want errConfig and fs.ErrNotExist matched", err)
	}
	want := "bad config: Store is required\nMaxBody is -1, want more than 0\npath: file does not exist"
	if err.Error() != want {
		t.Errorf("message %q, want %q", err.Error(), want)
	}
}

func TestLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		add  func(*problems.List)
		want string // "": no problem
	}{
		{"positive count", func(l *problems.List) { problems.Positive(l, "MaxDepth", 1) }, ""},
		{"zero count", func(l *problems.List) { problems.Positive(l, "MaxDepth", 0) }, "MaxDepth is 0, want more than 0"},
		{"negative size", func(l *problems.List) { problems.Positive(l, "MaxBody", int64(-1)) }, "MaxBody is -1, want more than 0"},
		{"positive duration", func(l *problems.List) { problems.Positive(l, "Timeout", time.Nanosecond) }, ""},
		{"zero duration", func(l *problems.List) { problems.Positive(l, "Timeout", time.Duration(0)) }, "Timeout is 0s, want more than 0"},
		{"zero default", func(l *problems.List) { problems.NotNegative(l, "MaxPages", 0) }, ""},
		{"negative count", func(l *problems.List) { problems.NotNegative(l, "MaxPages", -1) }, "MaxPages is -1, want 0 (the default) or more"},
		{"negative duration", func(l *problems.List) { problems.NotNegative(l, "MaxRunTime", -1500*time.Millisecond) },
			"MaxRunTime is -1.5s, want 0 (the default) or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var l problems.List
			tc.add(&l)
			err := l.Err(errConfig)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("a problem recorded: %v", err)
			case tc.want != "" && (err == nil || err.Error() != "bad config: "+tc.want):
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func ExampleList() {
	var p problems.List
	timeout := -1
	if timeout < 0 {
		p.Add("Timeout is %d, want 0 (the default) or more", timeout)
	}
	fmt.Println(p.Err(errConfig))
	// Output: bad config: Timeout is -1, want 0 (the default) or more
}
