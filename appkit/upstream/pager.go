package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"strconv"
	"strings"

	"github.com/appkitgo/appkit/appkit"
)

// Limits of paging.
const (
	// MaxPages bounds the pages of one list in one run: an upstream that
	// keeps answering a next page is an error after this many.
	MaxPages = 100_000
	// maxSeen is how many earlier cursors a Cursor remembers to detect a
	// cursor that comes back.
	maxSeen = 32
	// maxCursorLen bounds a cursor or next URL kept in nextPageConfig.
	maxCursorLen = 8 << 10
)

// Pager says how a list endpoint pages. Build one with [LinkHeader],
// [BodyCursor], [OffsetLimit] or [PageNumber]; [Pager.Items] says where the
// items are when the answer is an object.
type Pager struct {
	kind              pagerKind
	items             string // dotted path of the items in the body
	param, limitParam string
	cursorPath        string
	size              int
}

type pagerKind int

const (
	pageLink pagerKind = iota
	pageCursor
	pageOffset
	pageNumber
)

// LinkHeader pages by the answer's RFC 8288 Link header: the target of
// rel="next" is followed as given (it must stay on the upstream's origin);
// no next link ends the list. A Link header that does not parse is an
// error, never a guess.
func LinkHeader() Pager { return Pager{kind: pageLink} }

// BodyCursor pages by a cursor in the answer's body, at cursorPath (dotted
// for nested keys: "meta.next_cursor"), sent back as the query parameter
// param. An absent, null, empty or 0 cursor ends the list (a number is a
// next page number: 0 is none); a cursor seen before in the run is an error.
func BodyCursor(cursorPath, param string) Pager {
	return Pager{kind: pageCursor, cursorPath: cursorPath, param: param}
}

// OffsetLimit pages by an offset: offsetParam (from 0) and limitParam
// (limit items a page). A page with fewer than limit items ends the list.
func OffsetLimit(offsetParam, limitParam string, limit int) Pager {
	return Pager{kind: pageOffset, param: offsetParam, limitParam: limitParam, size: limit}
}

// PageNumber pages by a page number in param, from 1; sizeParam, when not
// empty, sends size. An empty page, or one shorter than size when size is
// positive, ends the list.
func PageNumber(param, sizeParam string, size int) Pager {
	return Pager{kind: pageNumber, param: param, limitParam: sizeParam, size: size}
}

// Items says where the items are when the answer is a JSON object: the key
// (dotted for nested keys: "data.items"). Without it the answer must be a
// JSON array of items.
func (p Pager) Items(path string) Pager {
	p.items = path
	return p
}

// Cursor is the position in a list, sent to the service as nextPageConfig
// and back: the next URL or cursor, offset or page, and fingerprints of the
// cursors already followed, so that a cursor that comes back is an error.
// A cursor from the service is checked before use.
type Cursor struct {
	// Next is the next page's URL (Link) or the upstream's cursor.
	Next string `json:"next,omitempty"`
	// Offset is the next page's offset.
	Offset int `json:"offset,omitempty"`
	// Page is the next page's number.
	Page int `json:"page,omitempty"`
	// Pages counts the pages loaded so far.
	Pages int `json:"pages,omitempty"`
	// Seen holds fingerprints of the last cursors followed.
	Seen []string `json:"seen,omitempty"`
}

// Fetched is one page loaded by [Fetch].
type Fetched[Raw any] struct {
	// Items are the page's items.
	Items []Raw
	// Next is the cursor of the next page, nil at the end.
	Next *Cursor
	// Response describes the answer.
	Response *Response
	// Body is the answer's body.
	Body json.RawMessage
}

// Fetch loads one page of a list endpoint: r (its Path and Query; r.Path
// is replaced by the next URL of a Link pager) at the position c (nil for
// the first page).
func Fetch[Raw any](ctx context.Context, s *Session, p Pager, r Request, c *Cursor) (*Fetched[Raw], error) {
	if err := p.checkCursor(c); err != nil {
		return nil, appkit.BadRequest("pagination: %v", err)
	}
	if c == nil {
		c = &Cursor{}
	}
	r.Query = cloneValues(r.Query)
	switch p.kind {
	case pageLink:
		if c.Next != "" {
			r.Path, r.Query = c.Next, nil
		}
	case pageCursor:
		if c.Next != "" {
			r.Query.Set(p.param, c.Next)
		}
	case pageOffset:
		r.Query.Set(p.param, strconv.Itoa(c.Offset))
		r.Query.Set(p.limitParam, strconv.Itoa(p.size))
	case pageNumber:
		r.Query.Set(p.param, strconv.Itoa(max(c.Page, 1)))
		if p.limitParam != "" {
			r.Query.Set(p.limitParam, strconv.Itoa(p.size))
		}
	}
	var body json.RawMessage
	resp, err := s.Do(ctx, r, &body)
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		msg := fmt.Sprintf(format, args...)
		return s.callError(r.method(), resp.URL, ErrBadAnswer, errors.New(msg), s.mask(msg))
	}
	raw, err := at(body, p.items)
	if err != nil {
		return nil, bad("%v", err)
	}
	out := &Fetched[Raw]{Response: resp, Body: body}
	if len(bytes.TrimSpace(raw)) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &out.Items); err != nil {
			return nil, bad("the items are not the expected JSON: %v", err)
		}
	}
	next := &Cursor{Pages: c.Pages + 1, Seen: c.Seen}
	switch p.kind {
	case pageLink:
		v := resp.Header.Values("Link")
		links, err := ParseLink(strings.Join(v, ", "))
		if err != nil {
			return nil, bad("%v", err)
		}
		n := NextLink(links)
		if n == "" {
			return out, nil
		}
		nu, err := resp.URL.Parse(n)
		if err != nil {
			return nil, bad("the next link %q is not a URL", n)
		}
		if !sameOrigin(nu, s.c.base) {
			return nil, bad("the next link leads to another origin (%s://%s); it is not followed", nu.Scheme, nu.Host)
		}
		next.Next = nu.String()
		if nu.String() == resp.URL.String() {
			return nil, bad("the next link is the page just loaded: the list would never end")
		}
	case pageCursor:
		cv, err := at(body, p.cursorPath)
		if err != nil {
			return nil, bad("%v", err)
		}
		var cur any
		if len(cv) > 0 {
			if err := json.Unmarshal(cv, &cur); err != nil {
				return nil, bad("the cursor at %q: %v", p.cursorPath, err)
			}
		}
		switch v := cur.(type) {
		case nil:
			return out, nil
		case string:
			if v == "" {
				return out, nil
			}
			next.Next = v
		case float64:
			if v == 0 { // "next": 0, the usual last page of numbered pages
				return out, nil
			}
			next.Next = strconv.FormatFloat(v, 'f', -1, 64)
		default:
			return nil, bad("the cursor at %q is a %T, not a string or number", p.cursorPath, cur)
		}
		if next.Next == c.Next {
			return nil, bad("the upstream answered the same cursor again: the list would never end")
		}
	case pageOffset:
		if len(out.Items) < p.size || len(out.Items) == 0 {
			return out, nil
		}
		next.Offset = c.Offset + len(out.Items)
	case pageNumber:
		if len(out.Items) == 0 || (p.size > 0 && len(out.Items) < p.size) {
			return out, nil
		}
		next.Page = max(c.Page, 1) + 1
	}
	if next.Next != "" {
		if len(next.Next) > maxCursorLen {
			return nil, bad("the next cursor is %d bytes long (limit %d)", len(next.Next), maxCursorLen)
		}
		fp := fingerprint(next.Next)
		for _, seen := range c.Seen {
			if seen == fp {
				return nil, bad("the upstream answered a cursor it answered before: the list would never end")
			}
		}
		if c.Next != "" {
			next.Seen = append(append([]string(nil), c.Seen...), fingerprint(c.Next))
			if len(next.Seen) > maxSeen {
				next.Seen = next.Seen[len(next.Seen)-maxSeen:]
			}
		}
	}
	if next.Pages >= MaxPages {
		return nil, bad("more than %d pages: the list is not ending", MaxPages)
	}
	out.Next = next
	return out, nil
}

// checkCursor refuses a nextPageConfig that this pager cannot have made.
func (p Pager) checkCursor(c *Cursor) error {
	if c == nil {
		return nil
	}
	switch {
	case c.Offset < 0 || c.Page < 0 || c.Pages < 0:
		return errors.New("a negative position")
	case len(c.Next) > maxCursorLen:
		return errors.New("a cursor over the size limit")
	case len(c.Seen) > maxSeen:
		return errors.New("too many cursors seen")
	case p.kind == pageLink && c.Next != "" && !strings.HasPrefix(c.Next, "http://") && !strings.HasPrefix(c.Next, "https://"):
		return errors.New("the next URL is not absolute")
	}
	return nil
}

func fingerprint(s string) string {
	h := fnv.New64a()
	h.Write([]byte(s))
	return strconv.FormatUint(h.Sum64(), 36)
}

// at returns the value at a dotted path of a JSON object ("" is the body
// itself); a missing key is an empty value.
func at(body json.RawMessage, path string) (json.RawMessage, error) {
	if path == "" {
		return body, nil
	}
	cur := body
	for _, key := range strings.Split(path, ".") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(cur, &m); err != nil {
			return nil, fmt.Errorf("the answer is not a JSON object with %q: %v", path, err)
		}
		v, ok := m[key]
		if !ok {
			return nil, nil
		}
		cur = v
	}
	return cur, nil
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v)+2)
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// Skip, returned by a List's Map function, leaves an item out of the page
// (like filepath.SkipDir: a signal, not a failure).
//
//lint:ignore ST1012 a signal returned on purpose, named like filepath.SkipDir
var Skip = errors.New("upstream: skip this item")

// List is a type's data handler over one list endpoint: Path pages with
// Pager, each item decoded as a Raw and mapped to a T by Map. The cursor's
// round trip through nextPageConfig is automatic. Only Client and Path are
// required; use it with appkit.Pages(list.Page) or [List.Handler].
type List[Raw, T any] struct {
	// Client is the upstream.
	Client *Client
	// Path is the list endpoint, relative to the Client's BaseURL.
	Path string
	// Pager says how it pages; the zero value is [LinkHeader].
	Pager Pager
	// Map turns an upstream item into an item of the type; returning Skip
	// leaves it out, another error fails the page. Nil: the items decode
	// straight into the type (Raw and T are the same type).
	Map func(Raw) (T, error)
	// Query, optional, adds request-dependent parameters (filters,
	// lastSynchronizedAt) to the first page, and to every page of the
	// pagers other than LinkHeader (whose next URLs are followed as given).
	Query func(req *appkit.DataRequest) (url.Values, error)
	// Delta, optional, says the request's pages are delta pages (the type
	// declares Delta; the query then asks for changes only).
	Delta func(req *appkit.DataRequest) bool
	// Removed, optional, is the body key (dotted) of the ids removed,
	// read on delta pages.
	Removed string
}

// Handler returns the list as a type's data handler.
func (l List[Raw, T]) Handler() appkit.DataHandler { return appkit.Pages(l.Page) }

// Page loads one page of the list for a data request.
func (l List[Raw, T]) Page(ctx context.Context, req *appkit.DataRequest, c *Cursor) (*appkit.Page[T, Cursor], error) {
	r := Request{Path: l.Path}
	if l.Query != nil {
		q, err := l.Query(req)
		if err != nil {
			return nil, err
		}
		r.Query = q
	}
	s := l.Client.For(req.Account)
	f, err := Fetch[Raw](ctx, s, l.Pager, r, c)
	if err != nil {
		return nil, err
	}
	page := &appkit.Page[T, Cursor]{Items: make([]T, 0, len(f.Items)), Next: f.Next, Delta: l.Delta != nil && l.Delta(req)}
	mapFn := l.Map
	if mapFn == nil {
		mapFn = same[Raw, T]
	}
	for i, raw := range f.Items {
		it, err := mapFn(raw)
		if errors.Is(err, Skip) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: item %d: %w", l.Path, i, err)
		}
		page.Items = append(page.Items, it)
	}
	if page.Delta && l.Removed != "" {
		raw, err := at(f.Body, l.Removed)
		if err == nil && len(raw) > 0 {
			err = json.Unmarshal(raw, &page.Removed)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: the removed ids at %q: %w", l.Path, l.Removed, errors.Join(ErrBadAnswer, err))
		}
	}
	return page, nil
}

// Items is the data handler of a type whose items come from one list
// endpoint: the endpoint, its pager and a mapping function (nil when the
// items decode straight into T: Items[T, T]), nothing else.
func Items[Raw, T any](c *Client, path string, p Pager, mapFn func(Raw) (T, error)) appkit.DataHandler {
	return List[Raw, T]{Client: c, Path: path, Pager: p, Map: mapFn}.Handler()
}

// same is the Map of a List whose upstream items are the type's items.
func same[Raw, T any](r Raw) (T, error) {
	t, ok := any(r).(T)
	if !ok {
		return t, fmt.Errorf("upstream: List of %T items without a Map to %T", r, t)
	}
	return t, nil
}
