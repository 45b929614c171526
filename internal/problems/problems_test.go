package problems_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

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
	if l.Len() != 3 || !errors.Is(err, errConfig) || !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err %v (len %d): want errConfig and fs.ErrNotExist matched", err, l.Len())
	}
	want := "bad config: Store is required\nMaxBody is -1, want more than 0\npath: file does not exist"
	if err.Error() != want {
		t.Errorf("message %q, want %q", err.Error(), want)
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
