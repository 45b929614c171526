package capped_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/appkitgo/appkit/internal/capped"
)

func TestList(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		max, add    int
		kept, count int
	}{
		{max: 0, add: 3, kept: 0, count: 3},
		{max: 3, add: 0, kept: 0, count: 0},
		{max: 3, add: 2, kept: 2, count: 0},
		{max: 3, add: 3, kept: 3, count: 0},
		{max: 3, add: 5, kept: 3, count: 2},
	} {
		t.Run(fmt.Sprintf("max %d, %d added", tc.max, tc.add), func(t *testing.T) {
			t.Parallel()
			l := capped.List[int]{Max: tc.max}
			for i := range tc.add {
				l.Add(i)
			}
			items, dropped := l.Items()
			want := []int(nil)
			for i := range tc.kept {
				want = append(want, i)
			}
			if !slices.Equal(items, want) || dropped != tc.count {
				t.Fatalf("kept %v, dropped %d; want %v, %d", items, dropped, want, tc.count)
			}
		})
	}
}

// Drop counts an item without keeping it, before Max is reached and after.
func TestDrop(t *testing.T) {
	t.Parallel()
	l := capped.List[string]{Max: 2}
	l.Add("a")
	l.Drop()
	l.Add("b")
	l.Add("c")
	l.Drop()
	items, dropped := l.Items()
	if !slices.Equal(items, []string{"a", "b"}) || dropped != 3 {
		t.Fatalf("kept %v, dropped %d; want [a b], 3", items, dropped)
	}
}

// Items is a copy: adding after it does not change what it returned.
func TestItemsIsACopy(t *testing.T) {
	t.Parallel()
	l := capped.List[string]{Max: 4}
	l.Add("a")
	l.Add("b")
	items, _ := l.Items()
	items[0] = "changed"
	l.Add("c")
	again, _ := l.Items()
	if !slices.Equal(again, []string{"a", "b", "c"}) {
		t.Fatalf("the list holds %v", again)
	}
}

// Concurrent adds keep exactly Max items and count every other one.
func TestConcurrentAdds(t *testing.T) {
	t.Parallel()
	l := capped.List[int]{Max: 50}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				l.Add(g*100 + i)
			}
		}()
	}
	wg.Wait()
	items, dropped := l.Items()
	if len(items) != 50 || dropped != 750 {
		t.Fatalf("kept %d, dropped %d; want 50, 750", len(items), dropped)
	}
}

func ExampleList() {
	calls := capped.List[string]{Max: 2}
	for _, c := range []string{"GET /a", "GET /b", "GET /c"} {
		calls.Add(c)
	}
	kept, dropped := calls.Items()
	fmt.Println(kept, dropped)
	// Output: [GET /a GET /b] 1
}
