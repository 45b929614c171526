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
// [Pager.PageSize] asks for a page size on every page.
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

// PageSize sends size as the query parameter param, asking the upstream for
// pages of that many items: on every page of a [BodyCursor] pager, on the
// first page of a [LinkHeader] pager (whose next URLs are followed as
// given, and usually carry it), and in place of the size given to
// [OffsetLimit] or [PageNumber]. An empty param or a size of 0 or less
// leaves the pager as it is. It does not change when a list ends: a cursor
// pager ends on its cursor, not on a short page.
func (p Pager) PageSize(param string, size int) Pager {
	if size <= 0 || param == "" {
		return p
	}
	p.limitParam, p.size = param, size
	return p
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
	r = p.position(r, c)
	var body json.RawMessage
	resp, err := s.Do(ctx, r, &body)
	if err != nil {
		return nil, err
	}
	bad := func(err error) error {
		return s.callError(r.method(), resp.URL, ErrBadAnswer, errors.New(err.Error()), s.mask(err.Error()))
	}
	out := &Fetched[Raw]{Response: resp, Body: body}
	if out.Items, err = pageItems[Raw](body, p.items); err != nil {
		return nil, bad(err)
	}
	if out.Next, err = p.next(s, resp, body, len(out.Items), c); err != nil {
		return nil, bad(err)
	}
	return out, nil
}

// position sets r's page: the next URL, cursor, offset or page number of
// c.
func (p Pager) position(r Request, c *Cursor) Request {
	r.Query = cloneValues(r.Query)
	switch p.kind {
	case pageLink:
		if c.Next != "" {
			r.Path, r.Query = c.Next, nil
		} else if p.limitParam != "" {
			r.Query.Set(p.limitParam, strconv.Itoa(p.size))
		}
	case pageCursor:
		if c.Next != "" {
			r.Query.Set(p.param, c.Next)
		}
		if p.limitParam != "" {
			r.Query.Set(p.limitParam, strconv.Itoa(p.size))
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
	return r
}

// pageItems decodes the items of a page's body found at path ("" for the
// whole body); none for null or nothing.
func pageItems[Raw any](body json.RawMessage, path string) ([]Raw, error) {
	raw, err := at(body, path)
	if err != nil {
		return nil, err
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	var items []Raw
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("the items are not the expected JSON: %v", err)
	}
	return items, nil
}

// next is the cursor of the page after the one answered (nil at the end of
// the list): an error for a next position that would never end the list.
func (p Pager) next(s *Session, resp *Response, body json.RawMessage, items int, c *Cursor) (*Cursor, error) {
	next := &Cursor{Pages: c.Pages + 1, Seen: c.Seen}
	var err error
	switch p.kind {
	case pageLink:
		next.Next, err = nextLinkOf(s, resp)
	case pageCursor:
		if next.Next, err = p.bodyCursor(body); err == nil && next.Next != "" && next.Next == c.Next {
			err = errors.New("the upstream answered the same cursor again: the list would never end")
		}
	case pageOffset:
		if items < p.size || items == 0 {
			return nil, nil
		}
		next.Offset = c.Offset + items
	case pageNumber:
		if items == 0 || (p.size > 0 && items < p.size) {
			return nil, nil
		}
		next.Page = max(c.Page, 1) + 1
	}
	if err != nil {
		return nil, err
	}
	if (p.kind == pageLink || p.kind == pageCursor) && next.Next == "" {
		return nil, nil
	}
	if next.Next != "" {
		if err := next.follow(c); err != nil {
			return nil, err
		}
	}
	if next.Pages >= MaxPages {
		return nil, fmt.Errorf("more than %d pages: the list is not ending", MaxPages)
	}
	return next, nil
}

// nextLinkOf is the answer's Link rel="next" URL, "" at the end: on the
// upstream's origin, and not the page just loaded.
func nextLinkOf(s *Session, resp *Response) (string, error) {
	links, err := ParseLink(strings.Join(resp.Header.Values("Link"), ", "))
	if err != nil {
		return "", err
	}
	n := NextLink(links)
	if n == "" {
		return "", nil
	}
	nu, err := resp.URL.Parse(n)
	if err != nil {
		return "", fmt.Errorf("the next link %q is not a URL", n)
	}
	if !sameOrigin(nu, s.c.base) {
		return "", fmt.Errorf("the next link leads to another origin (%s://%s); it is not followed", nu.Scheme, nu.Host)
	}
	if nu.String() == resp.URL.String() {
		return "", errors.New("the next link is the page just loaded: the list would never end")
	}
	return nu.String(), nil
}

// bodyCursor is the cursor at the pager's cursorPath in body, "" at the
// end (absent, null, "" or 0).
func (p Pager) bodyCursor(body json.RawMessage) (string, error) {
	cv, err := at(body, p.cursorPath)
	if err != nil {
		return "", err
	}
	var cur any
	if len(cv) > 0 {
		if err := json.Unmarshal(cv, &cur); err != nil {
			return "", fmt.Errorf("the cursor at %q: %v", p.cursorPath, err)
		}
	}
	switch v := cur.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	case float64:
		if v == 0 { // "next": 0, the usual last page of numbered pages
			return "", nil
		}
		return strconv.FormatFloat(v, 'f', -1, 64), nil
	default:
		return "", fmt.Errorf("the cursor at %q is a %T, not a string or number", p.cursorPath, cur)
	}
}

// follow checks the next cursor against the ones followed before c and
// remembers c's.
func (next *Cursor) follow(c *Cursor) error {
	if len(next.Next) > maxCursorLen {
		return fmt.Errorf("the next cursor is %d bytes long (limit %d)", len(next.Next), maxCursorLen)
	}
	fp := fingerprint(next.Next)
	for _, seen := range c.Seen {
		if seen == fp {
			return errors.New("the upstream answered a cursor it answered before: the list would never end")
		}
	}
	if c.Next != "" {
		next.Seen = append(append([]string(nil), c.Seen...), fingerprint(c.Next))
		if len(next.Seen) > maxSeen {
			next.Seen = next.Seen[len(next.Seen)-maxSeen:]
		}
	}
	return nil
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
