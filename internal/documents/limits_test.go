package documents

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The input limits refuse the shapes that make the markdown parser
// quadratic and let ordinary documents through.
func TestCheckMarkdownLimits(t *testing.T) {
	t.Parallel()
	manyLinks := strings.Repeat("See [a link](https://example.com/page) here.\n", 1000)
	for _, tc := range []struct {
		name string
		md   string
		ok   bool
	}{
		{"nested list markers, 256 KB", strings.Repeat("- ", 128<<10) + "x", false},
		{"32 containers on a line", strings.Repeat("- ", MaxContainersPerLine) + "x\n", true},
		{"33 containers on a line", strings.Repeat("- ", MaxContainersPerLine+1) + "x\n", false},
		{"33 quote markers", strings.Repeat("> ", MaxContainersPerLine+1) + "x\n", false},
		{"33 ordered markers", strings.Repeat("1. ", MaxContainersPerLine+1) + "x\n", false},
		{"mixed markers", strings.Repeat("- > 1) ", 11) + "x\n", false},
		{"long thematic break", strings.Repeat("- ", 100) + "\n", true},
		{"deep nesting over lines", func() string {
			var b strings.Builder
			for i := range 200 {
				b.WriteString(strings.Repeat("  ", i) + "- x\n")
			}
			return b.String()
		}(), true},
		{"1000 links in a paragraph", manyLinks, true},
		{"unclosed link destinations", strings.Repeat("[a](\n", 52000), false},
		{"brackets before a long word", strings.Repeat("[", 2000) + strings.Repeat("b", 64<<10), false},
		{"escaped brackets", strings.Repeat(`\[`, 64<<10), true},
		{"brackets in separate paragraphs", strings.Repeat("[a](\n\n", 20000), true},
		{"escaped backslash then bracket", strings.Repeat(`\\[`, 20000), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkMarkdown(tc.md)
			if tc.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tc.ok && !errors.Is(err, ErrTooComplex) {
				t.Fatalf("err = %v, want ErrTooComplex", err)
			}
			// Every path that parses markdown applies the limits.
			_, errDecode := decode(context.Background(), tc.md, FormatMarkdown)
			_, errHTML := encode(context.Background(), tc.md, FormatHTML)
			_, errJSON := encode(context.Background(), tc.md, FormatJSON)
			for _, e := range []error{errDecode, errHTML, errJSON} {
				if tc.ok != (e == nil) {
					t.Errorf("conversion err = %v, want ok=%v", e, tc.ok)
				}
			}
		})
	}
}

// A conversion whose context has ended stops at once, in every direction,
// whatever the document: the parsers check the context as they go.
func TestConversionsStopWhenCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	big := strings.Repeat("Some *text* with [a link](https://example.com).\n\n", 2000)
	bigHTML, err := MarkdownToHTML(big)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		run  func() error
	}{
		{"markdown to tree", func() error { _, err := markdownToTree(ctx, big); return err }},
		{"markdown to html", func() error { _, err := markdownToHTML(ctx, big); return err }},
		{"html to markdown", func() error { _, err := htmlToMarkdown(ctx, bigHTML); return err }},
		{"decode md", func() error { _, err := decode(ctx, big, FormatMarkdown); return err }},
		{"decode html", func() error { _, err := decode(ctx, bigHTML, FormatHTML); return err }},
		{"decode json", func() error {
			_, err := decode(ctx, `{"type":"doc","children":[{"type":"paragraph","children":[{"type":"text","text":"x"}]}]}`, FormatJSON)
			return err
		}},
		{"encode json", func() error { _, err := encode(ctx, big, FormatJSON); return err }},
	} {
		if err := tc.run(); !errors.Is(err, ErrTooComplex) {
			t.Errorf("%s: err = %v, want ErrTooComplex", tc.name, err)
		}
	}
	// The same conversions with a live context succeed.
	if _, err := decode(context.Background(), bigHTML, FormatHTML); err != nil {
		t.Fatal(err)
	}
}

// A bracket is escaped without looking for its partner (the converter's
// own rule is quadratic on a line of brackets), and the result reads back
// as the same text.
func TestHTMLBracketsStayText(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"<p>a [b] c</p>", "<p>[[[</p>", "<p>![x](y)</p>", "<p>" + strings.Repeat("[", 10000) + "</p>"} {
		out, err := HTMLToMarkdown(in)
		if err != nil {
			t.Fatal(err)
		}
		back, err := MarkdownToHTML(out)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(back, "<a ") || strings.Contains(back, "<img") {
			t.Errorf("%q -> %q -> %q: text became a link", in, out, back)
		}
		if got, want := strings.Count(back, "["), strings.Count(in, "["); got != want {
			t.Errorf("%q -> %q -> %q: %d brackets, want %d", in, out, back, got, want)
		}
	}
}

func request(key string) *http.Request {
	r := httptest.NewRequest("GET", "/api/documents/"+known, nil)
	r.Header.Set("Authorization", "Token "+key)
	return r
}

// One client cannot hold every conversion slot: its second conversion
// waits for its own slot while another client's runs; a conversion that
// times out has stopped and given its slots back when convert returns.
func TestConversionFairness(t *testing.T) {
	t.Parallel()
	h := &Handler{MaxConversions: 2, ConvertTimeout: time.Hour}
	release := make(chan struct{})
	started := make(chan struct{})
	first := make(chan error, 1)
	go func() {
		_, err := h.convert(request("a"), func(ctx context.Context) (string, error) {
			close(started)
			<-release
			return "a1", nil
		})
		first <- err
	}()
	<-started
	// Client a's second conversion cannot start while its first runs.
	h.ConvertTimeout = 20 * time.Millisecond
	ran := false
	_, err := h.convert(request("a"), func(ctx context.Context) (string, error) { ran = true; return "", nil })
	if !errors.Is(err, ErrTooComplex) || ran {
		t.Fatalf("second conversion of client a: ran=%v err=%v, want a timeout without running", ran, err)
	}
	// Client b gets the other slot.
	h.ConvertTimeout = time.Hour
	s, err := h.convert(request("b"), func(ctx context.Context) (string, error) { return "b1", nil })
	if err != nil || s != "b1" {
		t.Fatalf("client b: %q %v", s, err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}

	// A conversion that outlasts the timeout is stopped (its context ends),
	// and convert returns only once it has stopped, its slots free.
	h = &Handler{MaxConversions: 1, MaxClientConversions: 1, ConvertTimeout: 10 * time.Millisecond}
	cancelled, proceed := make(chan struct{}), make(chan struct{})
	result := make(chan error, 1)
	go func() {
		_, err := h.convert(request("a"), func(ctx context.Context) (string, error) {
			<-ctx.Done()
			close(cancelled)
			<-proceed // still stopping
			return "", ctx.Err()
		})
		result <- err
	}()
	<-cancelled
	select {
	case err := <-result:
		t.Fatalf("convert returned (%v) while its conversion was still running", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(proceed)
	if err := <-result; !errors.Is(err, ErrTooComplex) {
		t.Fatalf("err = %v, want ErrTooComplex", err)
	}
	if n := len(h.sem); n != 0 {
		t.Fatalf("%d global slots still held after the timeout", n)
	}
	h.mu.Lock()
	n := len(h.clients)
	h.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d client entries kept after the conversions ended", n)
	}
	h.ConvertTimeout = time.Hour
	if s, err := h.convert(request("a"), func(ctx context.Context) (string, error) { return "again", nil }); err != nil || s != "again" {
		t.Fatalf("after a timeout: %q %v", s, err)
	}
}

func TestDefaultClientKey(t *testing.T) {
	t.Parallel()
	mk := func(auth, cookie, addr string) *http.Request {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = addr
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		if cookie != "" {
			r.Header.Set("Cookie", cookie)
		}
		return r
	}
	same := [][2]*http.Request{
		{mk("Token a", "", "10.0.0.1:1"), mk("Token a", "", "10.0.0.2:2")},
		{mk("", "s=1", "10.0.0.1:1"), mk("", "s=1", "10.0.0.2:2")},
		{mk("", "", "10.0.0.1:1"), mk("", "", "10.0.0.1:2")},
	}
	for i, p := range same {
		if DefaultClientKey(p[0]) != DefaultClientKey(p[1]) {
			t.Errorf("pair %d: different keys for one client", i)
		}
	}
	differ := [][2]*http.Request{
		{mk("Token a", "", "10.0.0.1:1"), mk("Token b", "", "10.0.0.1:1")},
		{mk("", "", "10.0.0.1:1"), mk("", "", "10.0.0.2:1")},
	}
	for i, p := range differ {
		if DefaultClientKey(p[0]) == DefaultClientKey(p[1]) {
			t.Errorf("pair %d: one key for two clients", i)
		}
	}
	if k := DefaultClientKey(mk("Token secret-value", "", "")); strings.Contains(k, "secret") {
		t.Errorf("key %q holds the token", k)
	}
}

// The attack: two PUTs of 256 KB of nested list markers are refused
// before parsing, and other clients' reads and writes go on.
func TestHandlerNestedListAttack(t *testing.T) {
	t.Parallel()
	h, srv := newTestHandler(t)
	h.MaxBody = 1 << 20
	hostile := fmt.Sprintf(`{"content": %q}`, strings.Repeat("- ", 128<<10)+"x")
	for i := 0; i < 2; i++ {
		code, m := call(t, srv, "PUT", "/api/documents/"+known+"?format=md", hostile)
		if code != http.StatusUnprocessableEntity || !strings.Contains(fmt.Sprint(m["message"]), "nested blocks") {
			t.Fatalf("hostile PUT: %d %v", code, m)
		}
	}
	if n := len(h.sem); n != 0 {
		t.Fatalf("%d conversion slots held after refused documents", n)
	}
	code, m := call(t, srv, "PUT", "/api/documents/"+known+"?format=html", `{"content": "<p>fine</p>"}`)
	if code != http.StatusOK || m["content"] != "<p>fine</p>\n" {
		t.Fatalf("ordinary PUT: %d %v", code, m)
	}
}
