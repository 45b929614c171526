package upstream_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/appkitgo/appkit/appkit/upstream"
)

// cursorThings answers the 23 things 7 a page (or size= a page) behind a
// body cursor "after", and counts the calls.
func cursorThings(calls *atomic.Int32, sizes chan<- string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if sizes != nil {
			sizes <- r.URL.Query().Get("size")
		}
		size := 7
		if s, err := strconv.Atoi(r.URL.Query().Get("size")); err == nil {
			size = s
		}
		from, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Query().Get("after"), "c"))
		var next any
		if from+size < 23 {
			next = fmt.Sprintf("c%d", from+size)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"items": things(from, from+size), "next": next})
	}
}

func TestAll(t *testing.T) {
	t.Parallel()
	pager := upstream.BodyCursor("next", "after").Items("items")
	t.Run("every page", func(t *testing.T) {
		t.Parallel()
		var calls atomic.Int32
		c, _ := serve(t, cursorThings(&calls, nil))
		got, err := upstream.All[rawThing](t.Context(), c.For(acct), pager, upstream.Request{Path: "/things"}, 0)
		if err != nil || len(got) != 23 || got[0].N != 0 || got[22].N != 22 || calls.Load() != 4 {
			t.Fatalf("got %d items (%v), %d calls, err %v", len(got), got, calls.Load(), err)
		}
	})
	t.Run("exactly the limit", func(t *testing.T) {
		t.Parallel()
		var calls atomic.Int32
		c, _ := serve(t, cursorThings(&calls, nil))
		got, err := upstream.All[rawThing](t.Context(), c.For(acct), pager, upstream.Request{Path: "/things"}, 23)
		if err != nil || len(got) != 23 {
			t.Fatalf("got %d items, err %v", len(got), err)
		}
	})
	t.Run("past the limit", func(t *testing.T) {
		t.Parallel()
		var calls atomic.Int32
		c, _ := serve(t, cursorThings(&calls, nil))
		got, err := upstream.All[rawThing](t.Context(), c.For(acct), pager, upstream.Request{Path: "/things"}, 10)
		if !errors.Is(err, upstream.ErrTooMany) || got != nil || calls.Load() != 2 {
			t.Fatalf("got %v, %d calls, err %v; want ErrTooMany after the second page", got, calls.Load(), err)
		}
		if !strings.Contains(err.Error(), "/things") || !strings.Contains(err.Error(), "10") {
			t.Fatalf("err = %v, want the path and the limit", err)
		}
	})
	t.Run("a failing page", func(t *testing.T) {
		t.Parallel()
		var calls atomic.Int32
		c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) > 1 {
				w.WriteHeader(http.StatusNotFound)
				return
			}
			fmt.Fprint(w, `{"items":[{"n":1}],"next":"c1"}`)
		})
		if _, err := upstream.All[rawThing](t.Context(), c.For(acct), pager, upstream.Request{Path: "/things"}, 0); !errors.Is(err, upstream.ErrNotFound) {
			t.Fatalf("err = %v, want ErrNotFound", err)
		}
	})
	t.Run("link header, no items", func(t *testing.T) {
		t.Parallel()
		c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `[]`) })
		got, err := upstream.All[rawThing](t.Context(), c.For(acct), upstream.LinkHeader(), upstream.Request{Path: "/things"}, 0)
		if err != nil || len(got) != 0 {
			t.Fatalf("got %v, err %v", got, err)
		}
	})
}

func TestPageSize(t *testing.T) {
	t.Parallel()
	t.Run("body cursor: every page", func(t *testing.T) {
		t.Parallel()
		var calls atomic.Int32
		sizes := make(chan string, 10)
		c, _ := serve(t, cursorThings(&calls, sizes))
		p := upstream.BodyCursor("next", "after").Items("items").PageSize("size", 10)
		got, err := upstream.All[rawThing](t.Context(), c.For(acct), p, upstream.Request{Path: "/things"}, 0)
		close(sizes)
		if err != nil || len(got) != 23 || calls.Load() != 3 {
			t.Fatalf("got %d items, %d calls, err %v", len(got), calls.Load(), err)
		}
		for s := range sizes {
			if s != "10" {
				t.Fatalf("a page asked size=%q, want 10", s)
			}
		}
	})
	t.Run("link header: the first page", func(t *testing.T) {
		t.Parallel()
		var (
			mu    sync.Mutex
			asked []string
		)
		c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			asked = append(asked, r.URL.RawQuery)
			mu.Unlock()
			if r.URL.Query().Get("page") == "" {
				w.Header().Set("Link", `</api/things?page=2>; rel="next"`)
			}
			fmt.Fprint(w, `[{"n":1}]`)
		})
		p := upstream.LinkHeader().PageSize("per_page", 50)
		if _, err := upstream.All[rawThing](t.Context(), c.For(acct), p, upstream.Request{Path: "/things"}, 0); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(asked) != 2 || asked[0] != "per_page=50" || asked[1] != "page=2" {
			t.Fatalf("queries = %q, want per_page=50 then the next link as given", asked)
		}
	})
	t.Run("offset limit: replaces the limit", func(t *testing.T) {
		t.Parallel()
		c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
			off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
			limit, _ := strconv.Atoi(r.URL.Query().Get("max"))
			if limit != 6 {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			_ = json.NewEncoder(w).Encode(things(off, off+limit))
		})
		p := upstream.OffsetLimit("offset", "limit", 5).PageSize("max", 6)
		got, err := upstream.All[rawThing](t.Context(), c.For(acct), p, upstream.Request{Path: "/things"}, 0)
		if err != nil || len(got) != 23 {
			t.Fatalf("got %d items, err %v", len(got), err)
		}
	})
	t.Run("no size leaves the pager", func(t *testing.T) {
		t.Parallel()
		c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
			if r.URL.RawQuery != "" {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			fmt.Fprint(w, `{"items":[]}`)
		})
		p := upstream.BodyCursor("next", "after").Items("items").PageSize("size", 0)
		if _, err := upstream.All[rawThing](t.Context(), c.For(acct), p, upstream.Request{Path: "/things"}, 0); err != nil {
			t.Fatal(err)
		}
	})
}
