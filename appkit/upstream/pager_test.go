package upstream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/appkittest"
	"github.com/appkitgo/appkit/appkit/upstream"
)

// Thing is the synchronized type of the paging tests.
type Thing struct {
	ID   string `appkit:"id"`
	Name string `appkit:"name"`
}

type rawThing struct {
	N     int  `json:"n"`
	Draft bool `json:"draft"`
}

func toThing(r rawThing) (Thing, error) {
	if r.Draft {
		return Thing{}, upstream.Skip
	}
	return Thing{ID: strconv.Itoa(r.N), Name: fmt.Sprint("thing ", r.N)}, nil
}

// things answers items from..to (exclusive) of 23, item 5 a draft.
func things(from, to int) []rawThing {
	var out []rawThing
	for i := from; i < min(to, 23); i++ {
		out = append(out, rawThing{N: i, Draft: i == 5})
	}
	return out
}

// syncIDs syncs the type "thing" of an app over handler h and returns the
// ids in order.
func syncIDs(t *testing.T, data func(c *upstream.Client) appkit.DataHandler, h http.HandlerFunc) []string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c := &upstream.Client{BaseURL: srv.URL, Auth: upstream.Bearer("token"), HTTPClient: srv.Client()}
	app := &appkit.App{ID: "things", Name: "Things", Version: "1.0.0",
		Auth: []appkit.Auth{appkit.TokenAuth("Token", "A token", func(_ context.Context, _ string) (string, error) { return "x", nil })},
		Sync: &appkit.Sync{Types: []appkit.Type{{ID: "thing", Name: "Things", Data: data(c)}}}}
	ac := appkittest.New(t, app)
	ac.Account = map[string]any{"token": secret}
	var ids []string
	for _, it := range ac.SyncAll(appkittest.Run{Type: "thing"}) {
		ids = append(ids, it["id"].(string))
	}
	return ids
}

func wantAll(t *testing.T, ids []string) {
	t.Helper()
	var want []string
	for i := range 23 {
		if i != 5 {
			want = append(want, strconv.Itoa(i))
		}
	}
	if !slices.Equal(ids, want) {
		t.Fatalf("ids = %v\nwant %v", ids, want)
	}
}

func TestPagers(t *testing.T) {
	t.Parallel()
	t.Run("link header", func(t *testing.T) {
		t.Parallel()
		ids := syncIDs(t, func(c *upstream.Client) appkit.DataHandler {
			return upstream.Items(c, "/things?per_page=10", upstream.LinkHeader(), toThing)
		}, func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+secret || r.URL.Query().Get("per_page") != "10" {
				w.WriteHeader(401)
				return
			}
			p, _ := strconv.Atoi(r.URL.Query().Get("page"))
			p = max(p, 1)
			if p < 3 {
				// relative and absolute next links, with other relations around
				next := fmt.Sprintf("/things?per_page=10&page=%d", p+1)
				if p == 2 {
					next = "http://" + r.Host + next
				}
				w.Header().Add("Link", `<https://x.example/first>; rel="first"`)
				w.Header().Add("Link", fmt.Sprintf(`<%s>; title="next one"; rel="next", <https://x.example/last>; rel=last`, next))
			}
			_ = json.NewEncoder(w).Encode(things((p-1)*10, p*10))
		})
		wantAll(t, ids)
	})
	t.Run("body cursor", func(t *testing.T) {
		t.Parallel()
		ids := syncIDs(t, func(c *upstream.Client) appkit.DataHandler {
			return upstream.Items(c, "/things", upstream.BodyCursor("meta.next", "after").Items("data.items"), toThing)
		}, func(w http.ResponseWriter, r *http.Request) {
			from, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Query().Get("after"), "c"))
			var next any
			if from+7 < 23 {
				next = fmt.Sprintf("c%d", from+7)
			}
			_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"items": things(from, from+7)}, "meta": map[string]any{"next": next}})
		})
		wantAll(t, ids)
	})
	t.Run("offset limit", func(t *testing.T) {
		t.Parallel()
		ids := syncIDs(t, func(c *upstream.Client) appkit.DataHandler {
			return upstream.Items(c, "/things", upstream.OffsetLimit("offset", "limit", 5).Items("items"), toThing)
		}, func(w http.ResponseWriter, r *http.Request) {
			off, _ := strconv.Atoi(r.URL.Query().Get("offset"))
			limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
			_ = json.NewEncoder(w).Encode(map[string]any{"items": things(off, off+limit)})
		})
		wantAll(t, ids)
	})
	t.Run("page number", func(t *testing.T) {
		t.Parallel()
		ids := syncIDs(t, func(c *upstream.Client) appkit.DataHandler {
			return upstream.Items(c, "/things", upstream.PageNumber("page", "size", 4), toThing)
		}, func(w http.ResponseWriter, r *http.Request) {
			p, _ := strconv.Atoi(r.URL.Query().Get("page"))
			size, _ := strconv.Atoi(r.URL.Query().Get("size"))
			_ = json.NewEncoder(w).Encode(things((p-1)*size, p*size))
		})
		wantAll(t, ids)
	})
}

// TestPagingLoops: an upstream that would page forever is an error.
func TestPagingLoops(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		pager upstream.Pager
		h     http.HandlerFunc
		want  string
	}{
		{"link to itself", upstream.LinkHeader(), func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", `<`+r.URL.Path+`>; rel="next"`)
			fmt.Fprint(w, `[]`)
		}, "the page just loaded"},
		{"link cycle", upstream.LinkHeader(), func(w http.ResponseWriter, r *http.Request) {
			next := map[string]string{"/things": "/b", "/b": "/c", "/c": "/b"}[r.URL.Path]
			w.Header().Set("Link", `<`+next+`>; rel="next"`)
			fmt.Fprint(w, `[]`)
		}, "answered before"},
		{"broken link", upstream.LinkHeader(), func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", `<https://x.example/2; rel="next"`)
			fmt.Fprint(w, `[]`)
		}, "does not parse"},
		{"link to another origin", upstream.LinkHeader(), func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Link", `<https://evil.example/2>; rel="next"`)
			fmt.Fprint(w, `[]`)
		}, "another origin"},
		{"repeating cursor", upstream.BodyCursor("next", "c").Items("items"), func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"items":[],"next":"same"}`)
		}, "same cursor again"},
		{"cursor cycle", upstream.BodyCursor("next", "c").Items("items"), func(w http.ResponseWriter, r *http.Request) {
			next := map[string]string{"": "a", "a": "b", "b": "a"}[r.URL.Query().Get("c")]
			fmt.Fprintf(w, `{"items":[],"next":%q}`, next)
		}, "answered before"},
		{"cursor not a string", upstream.BodyCursor("next", "c").Items("items"), func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"items":[],"next":{"x":1}}`)
		}, "not a string or number"},
		{"items not an array", upstream.LinkHeader(), func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"items":[]}`)
		}, "items are not the expected JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(tc.h)
			t.Cleanup(srv.Close)
			c := &upstream.Client{BaseURL: srv.URL, Auth: upstream.Bearer("token"), HTTPClient: srv.Client()}
			l := upstream.List[rawThing, Thing]{Client: c, Path: "/things", Pager: tc.pager, Map: toThing}
			req := &appkit.DataRequest{Request: appkit.Request{Account: acct}}
			var cur *upstream.Cursor
			for range 10 {
				p, err := l.Page(t.Context(), req, cur)
				if err != nil {
					if !errors.Is(err, upstream.ErrBadAnswer) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), secret) {
						t.Fatalf("err = %v, want one saying %q", err, tc.want)
					}
					return
				}
				if p.Next == nil {
					t.Fatal("the list ended without an error")
				}
				// the service's round trip
				b, _ := json.Marshal(p.Next)
				cur = new(upstream.Cursor)
				_ = json.Unmarshal(b, cur)
			}
			t.Fatal("no error after 10 pages")
		})
	}
}

// TestHostileCursor: a nextPageConfig that the pager cannot have made is
// refused before any call.
func TestHostileCursor(t *testing.T) {
	t.Parallel()
	c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { t.Error("called with a hostile cursor") })
	req := &appkit.DataRequest{Request: appkit.Request{Account: acct}}
	for _, cur := range []upstream.Cursor{
		{Next: "https://evil.example/steal"},
		{Next: "/relative"},
		{Offset: -1},
		{Next: strings.Repeat("x", 9000)},
	} {
		l := upstream.List[rawThing, Thing]{Client: c, Path: "/things", Map: toThing}
		_, err := l.Page(t.Context(), req, &cur)
		if err == nil {
			t.Errorf("cursor %.40v accepted", cur)
		}
	}
}

// TestListDelta: a delta list answers delta pages with the removals, and
// adds the request's query.
func TestListDelta(t *testing.T) {
	t.Parallel()
	c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("since") != "2026-01-01T00:00:00Z" {
			w.WriteHeader(400)
			return
		}
		fmt.Fprint(w, `{"items":[{"n":1}],"gone":["7","8"]}`)
	})
	l := upstream.List[rawThing, Thing]{Client: c, Path: "/changes", Pager: upstream.PageNumber("page", "", 0).Items("items"), Map: toThing,
		Query: func(req *appkit.DataRequest) (url.Values, error) {
			return url.Values{"since": {req.LastSynchronizedAt.Format("2006-01-02T15:04:05Z07:00")}}, nil
		},
		Delta:   func(req *appkit.DataRequest) bool { return !req.LastSynchronizedAt.IsZero() },
		Removed: "gone",
	}
	req := &appkit.DataRequest{Request: appkit.Request{Account: acct}}
	req.LastSynchronizedAt = mustTime("2026-01-01T00:00:00Z")
	p, err := l.Page(t.Context(), req, nil)
	if err != nil || !p.Delta || len(p.Items) != 1 || !slices.Equal(p.Removed, []string{"7", "8"}) || p.Next == nil || p.Next.Page != 2 {
		t.Fatalf("page %+v, %v", p, err)
	}
}

func mustTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestListWithoutMap: items decode straight into the type; a List whose
// upstream items are another type needs a Map.
func TestListWithoutMap(t *testing.T) {
	t.Parallel()
	c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, `[{"id":"1","name":"one"}]`) })
	req := &appkit.DataRequest{Request: appkit.Request{Account: acct}}
	p, err := upstream.List[Thing, Thing]{Client: c, Path: "/things"}.Page(t.Context(), req, nil)
	if err != nil || len(p.Items) != 1 || p.Items[0] != (Thing{ID: "1", Name: "one"}) {
		t.Fatalf("page %+v, %v", p, err)
	}
	if _, err := (upstream.List[rawThing, Thing]{Client: c, Path: "/things"}).Page(t.Context(), req, nil); err == nil || !strings.Contains(err.Error(), "without a Map") {
		t.Fatalf("mismatched types without a Map: %v", err)
	}
}
