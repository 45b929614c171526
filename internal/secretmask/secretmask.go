// Package secretmask masks secrets in the texts that people see: log
// lines, error messages, the upstream calls an app reports, the exchanges
// the host keeps and the recordings of tests. It is the one implementation
// that the SDK (appkit, appkit/upstream, appkit/appkittest, oauth) and the
// host (internal/apps, internal/calllog) share, so that every caller masks
// the same spellings of a secret.
//
// A [Masker] is built from the secret values of one account or call. A
// secret of at least [MinLen] bytes is masked wherever it appears, in
// every spelling it takes on the wire: plain, query-escaped, path-escaped
// (both url.PathEscape and a URL path's escaping), JSON-escaped (with and
// without HTML escapes) and, for Basic credentials ([Masker.AddBasic]),
// the base64 of "user:password". A shorter secret is masked only where it
// is a whole value: the whole text, a quoted value, or a query or form
// value (masking every "ab" of a text would garble it and hide nothing).
//
// JSON fields are also masked by name ([SecretName], or the names a
// caller gives), in a body that may be cut short or not be JSON at all,
// and a cut body never ends with the start of a secret ([Masker.Body]).
// A Masker without secrets costs a nil check per text.
package secretmask

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/appkitgo/appkit/internal/jsonw"
)

// MinLen is the shortest secret masked wherever it appears; a shorter one
// is masked only where it is a whole value.
const MinLen = 4

// Mask replaces a secret unless [Options.Mask] says otherwise.
const Mask = "***"

// MaxSecrets bounds the secrets one Masker remembers (a hostile answer
// may bring many fields with secret names).
const MaxSecrets = 1000

// maxPasses bounds the passes of masking over one text: a pass may make a
// new occurrence of a secret out of the mask and its neighbours, and is
// repeated until none is left; a text still changing after maxPasses is
// replaced whole by the mask.
const maxPasses = 64

// Options are the choices of a Masker besides its secrets.
type Options struct {
	// Mask replaces each secret; empty means [Mask].
	Mask string
	// Names reports whether a JSON field or a query parameter holds a
	// secret by its name; nil means [SecretName].
	Names func(name string) bool
	// Remember adds the value of every secret-named JSON field that
	// [Masker.Fields] masks to the secrets, so that a token an answer
	// brings is masked from then on.
	Remember bool
}

// Masker masks a set of secrets in texts. The zero value and a nil
// *Masker mask no value but the secret-named fields of [Masker.Fields]
// and [Masker.Query]. It is safe for concurrent use.
type Masker struct {
	opts Options

	mu    sync.RWMutex
	known map[string]bool
	// forms are the spellings of the secrets of MinLen bytes or more,
	// longest first; short are the shorter secrets. Both are replaced
	// whole when a secret is added (read under mu, used after).
	forms []string
	short []string
}

// New is a Masker of secrets with the default options.
func New(secrets ...string) *Masker { return NewWith(Options{}, secrets...) }

// NewWith is a Masker of secrets with opts.
func NewWith(opts Options, secrets ...string) *Masker {
	m := &Masker{opts: opts}
	m.Add(secrets...)
	return m
}

func (m *Masker) mask() string {
	if m == nil || m.opts.Mask == "" {
		return Mask
	}
	return m.opts.Mask
}

func (m *Masker) names() func(string) bool {
	if m == nil || m.opts.Names == nil {
		return SecretName
	}
	return m.opts.Names
}

// Add adds secrets (empty ones are ignored, and any beyond [MaxSecrets]).
// Adding only known secrets copies nothing.
func (m *Masker) Add(secrets ...string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var forms, short []string
	for _, sec := range secrets {
		if sec == "" || m.known[sec] || len(m.known) >= MaxSecrets {
			continue
		}
		if m.known == nil {
			m.known = map[string]bool{}
		}
		m.known[sec] = true
		if len(sec) < MinLen {
			short = append(short, sec)
			continue
		}
		forms = append(forms, Spellings(sec)...)
	}
	// The lists are replaced, never changed in place: a reader may hold
	// the old ones.
	if len(short) > 0 {
		m.short = slices.Concat(m.short, short)
	}
	if len(forms) > 0 {
		forms = slices.Concat(m.forms, forms)
		slices.SortFunc(forms, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
		m.forms = slices.Compact(forms)
	}
}

// AddBasic adds the password of Basic credentials and the spellings of
// what the Authorization header carries: the base64 of "user:password"
// (standard and URL alphabets, padded or not), and of the password alone.
func (m *Masker) AddBasic(user, password string) {
	if password == "" {
		return
	}
	m.Add(append([]string{password}, BasicSpellings(user, password)...)...)
}

// BasicSpellings are the base64 spellings of Basic credentials: of
// "user:password" and of the password alone, in the standard and URL
// alphabets, padded or not.
func BasicSpellings(user, password string) []string {
	var out []string
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		out = append(out, enc.EncodeToString([]byte(user+":"+password)), enc.EncodeToString([]byte(password)))
	}
	return out
}

// Spellings are the forms a secret takes: itself, query-escaped,
// path-escaped, as a URL's path, and JSON-escaped with HTML escapes (as
// encoding/json writes it) and without (as jsonw, the SDK's writer, and
// an encoder without HTML escaping write it), each once.
func Spellings(sec string) []string {
	quoted, _ := json.Marshal(sec)
	noHTML := string(jsonw.AppendString(nil, sec))
	out := []string{sec, url.QueryEscape(sec), url.PathEscape(sec), (&url.URL{Path: sec}).EscapedPath()}
	if len(quoted) >= 2 {
		out = append(out, string(quoted[1:len(quoted)-1]))
	}
	if len(noHTML) >= 2 {
		out = append(out, noHTML[1:len(noHTML)-1])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// secrets are the current forms and short secrets.
func (m *Masker) secrets() (forms, short []string) {
	if m == nil {
		return nil, nil
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.forms, m.short
}

// Mask replaces each secret in text, in each of its spellings; a short
// secret only where it is a whole value (the whole text, quoted, or the
// value of a query or form parameter).
func (m *Masker) Mask(text string) string {
	forms, short := m.secrets()
	if len(forms) == 0 && len(short) == 0 || text == "" {
		return text
	}
	return m.fixpoint(text, func(s string) string { return m.replace(s, forms, short) })
}

// fixpoint applies pass until text no longer changes.
func (m *Masker) fixpoint(text string, pass func(string) string) string {
	for range maxPasses {
		out := pass(text)
		if out == text {
			return out
		}
		text = out
	}
	return m.mask()
}

// replace is one pass of Mask.
func (m *Masker) replace(text string, forms, short []string) string {
	mask := m.mask()
	for _, f := range forms {
		if strings.Contains(text, f) {
			text = strings.ReplaceAll(text, f, mask)
		}
	}
	for _, sec := range short {
		if sec == mask {
			continue
		}
		if text == sec {
			return mask
		}
		text = replaceWhole(text, sec, mask)
	}
	return text
}

// replaceWhole replaces sec where it is a whole value in text: between
// quotes, or after "=" up to "&", a space or the end.
func replaceWhole(text, sec, mask string) string {
	if !strings.Contains(text, sec) {
		return text
	}
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(text[i:], sec)
		if j < 0 {
			break
		}
		j += i
		end := j + len(sec)
		before, after := byte(0), byte(0)
		if j > 0 {
			before = text[j-1]
		}
		if end < len(text) {
			after = text[end]
		}
		whole := before == '"' && after == '"' || before == '\'' && after == '\'' ||
			before == '=' && (after == 0 || after == '&' || after == ' ' || after == ';')
		if whole {
			b.WriteString(text[i:j])
			b.WriteString(mask)
			i = end
			continue
		}
		b.WriteString(text[i : j+1])
		i = j + 1
	}
	if i == 0 {
		return text
	}
	b.WriteString(text[i:])
	return b.String()
}

// MaskValues masks whole values: every value (a run of characters between
// spaces, quotes and the punctuation that delimits values) that holds a
// secret of [MinLen] bytes or more in any spelling is replaced whole, and
// so is a quoted value equal to a shorter secret. It is what a log line
// shows: no part of a value that held a secret is left.
func (m *Masker) MaskValues(text string) string {
	forms, short := m.secrets()
	if len(forms) == 0 && len(short) == 0 || text == "" {
		return text
	}
	mask := m.mask()
	return m.fixpoint(text, func(msg string) string {
		for _, f := range forms {
			if strings.ContainsFunc(f, func(r rune) bool { return r < utf8.RuneSelf && isValueDelim(byte(r)) }) {
				msg = strings.ReplaceAll(msg, f, mask)
			}
		}
		var b strings.Builder
		for i := 0; i < len(msg); {
			if isValueDelim(msg[i]) {
				b.WriteByte(msg[i])
				i++
				continue
			}
			j := i
			for j < len(msg) && !isValueDelim(msg[j]) {
				j++
			}
			value := msg[i:j]
			quoted := i > 0 && j < len(msg) && msg[i-1] == '"' && msg[j] == '"'
			if value != mask && (containsAny(value, forms) || quoted && slices.Contains(short, value)) {
				b.WriteString(mask)
			} else {
				b.WriteString(value)
			}
			i = j
		}
		return b.String()
	})
}

// MaskValue masks a whole value (an id) that is a secret, of any length,
// or holds one of MinLen bytes or more in any spelling.
func (m *Masker) MaskValue(v string) string {
	forms, short := m.secrets()
	if len(forms) == 0 && len(short) == 0 {
		return v
	}
	if slices.Contains(short, v) || containsAny(v, forms) {
		return m.mask()
	}
	return v
}

func containsAny(s string, forms []string) bool {
	for _, f := range forms {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

func isValueDelim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', ',', ';', '(', ')', '[', ']', '{', '}', '<', '>':
		return true
	}
	return false
}

// SecretName reports whether a JSON field or a query parameter holds a
// secret by its name.
func SecretName(k string) bool {
	k = strings.ToLower(k)
	if k == "sig" { // a shared access signature's parameter (Azure SAS); a word inside others ("design")
		return true
	}
	for _, w := range []string{"token", "secret", "password", "passwd", "key", "code", "verifier", "credential", "signature", "authorization", "cookie", "session"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// Query replaces the values of the secret-named parameters of a raw query
// with the mask; the rest keeps its bytes. The secrets are not masked (see
// [Masker.Mask]).
func (m *Masker) Query(raw string) string {
	if raw == "" {
		return ""
	}
	names, mask := m.names(), m.mask()
	parts := strings.Split(raw, "&")
	for i, p := range parts {
		k, _, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if names(name) {
			parts[i] = k + "=" + mask
		}
	}
	return strings.Join(parts, "&")
}

// URL masks a URL's user information (user:password@ becomes the mask)
// and the values of the secret-named parameters of its query and of its
// fragment (an OAuth implicit grant's #access_token=…); the rest keeps its
// bytes. A text that does not parse as a URL with a host is masked the
// same way over its text: the user information is what comes before the
// last '@' after the first "//" (up to the next '/' or '?'), the query
// what follows the first '?'. As with Query, the secrets are not masked.
func (m *Masker) URL(raw string) string {
	rest, frag, hasFrag := strings.Cut(raw, "#")
	mask := m.mask()
	var s string
	if u, err := url.Parse(rest); err == nil && u.Host != "" {
		if u.User != nil {
			u.User = url.User(mask)
		}
		u.RawQuery = m.Query(u.RawQuery)
		// url.User escapes the mask; the query keeps its bytes.
		s = strings.Replace(u.String(), url.PathEscape(mask)+"@", mask+"@", 1)
	} else {
		s = m.urlText(rest, mask)
	}
	if hasFrag {
		s += "#" + m.Query(frag)
	}
	return s
}

// urlText is URL over the text of a URL that does not parse (or has no
// host).
func (m *Masker) urlText(s, mask string) string {
	pre, query, hasQuery := strings.Cut(s, "?")
	if i := strings.Index(pre, "//"); i >= 0 {
		auth := pre[i+2:]
		if j := strings.IndexByte(auth, '/'); j >= 0 {
			auth = auth[:j]
		}
		if at := strings.LastIndexByte(auth, '@'); at >= 0 {
			pre = pre[:i+2] + mask + pre[i+2+at:]
		}
	}
	if hasQuery {
		return pre + "?" + m.Query(query)
	}
	return pre
}

// JSON masks a body: its secret-named fields ([Masker.Fields]), then its
// secrets ([Masker.Mask]).
func (m *Masker) JSON(b []byte) string { return m.Mask(string(m.Fields(b))) }

// Fields replaces with the quoted mask the string values that follow a
// secret-named key in b, a JSON text that may be cut short or not be JSON
// at all (scanned, not decoded: a value cut short is masked too); the rest
// keeps its bytes. With [Options.Remember], the values are added to the
// secrets.
func (m *Masker) Fields(b []byte) []byte {
	names, quotedMask := m.names(), `"`+m.mask()+`"`
	remember := m != nil && m.opts.Remember
	var remembered []string // added at the end, at once
	out := make([]byte, 0, len(b))
	var nest []byte // the open objects and arrays
	key, afterColon := "", false
	for i := 0; i < len(b); {
		c := b[i]
		if c == '"' {
			end, closed := scanString(b, i)
			inObject := len(nest) > 0 && nest[len(nest)-1] == '{'
			switch {
			case inObject && !afterColon:
				key = decodeString(b[i:end], closed)
				out = append(out, b[i:end]...)
			case afterColon && names(key):
				if remember {
					if v := decodeString(b[i:end], closed); len(v) >= MinLen {
						remembered = append(remembered, v)
					}
				}
				out = append(out, quotedMask...)
			default:
				out = append(out, b[i:end]...)
			}
			afterColon = false
			i = end
			continue
		}
		switch c {
		case ':':
			afterColon = true
		case '{', '[':
			if len(nest) < maxDepth {
				nest = append(nest, c)
			}
			afterColon = false
		case '}', ']':
			if len(nest) > 0 {
				nest = nest[:len(nest)-1]
			}
			afterColon = false
		case ',':
			afterColon = false
		}
		out = append(out, c)
		i++
	}
	if len(remembered) > 0 {
		m.Add(remembered...)
	}
	return out
}

// maxDepth bounds the nesting Fields follows (deeper, a key is still told
// from a value by the colon before it).
const maxDepth = 10000

// scanString returns the index after the JSON string starting at b[i] (a
// quote), and whether it was closed before b ended.
func scanString(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, true
		}
	}
	return len(b), false
}

// decodeString is the text of a scanned JSON string (what it holds so far
// when it was cut short).
func decodeString(q []byte, closed bool) string {
	if closed {
		var s string
		if json.Unmarshal(q, &s) == nil {
			return s
		}
	}
	s := strings.TrimPrefix(string(q), `"`)
	if closed {
		s = strings.TrimSuffix(s, `"`)
	}
	return s
}

// cut is text cut to n bytes, more included, with no secret's start at
// its end.
func (m *Masker) cut(text string, n int, more string) string {
	i := max(0, min(len(text), n-len(more)))
	for i > 0 && i < len(text) && !utf8.RuneStart(text[i]) {
		i--
	}
	forms, short := m.secrets()
	return strings.ToValidUTF8(trimSecretStart(text[:i], forms, short), "") + more
}

// trimSecretStart drops the end of text that is the start of one of the
// forms or short secrets.
func trimSecretStart(text string, forms, short []string) string {
	for trimmed := true; trimmed; {
		trimmed = false
		for _, list := range [][]string{forms, short} {
			for _, f := range list {
				for k := min(len(f)-1, len(text)); k > 0; k-- {
					if strings.HasSuffix(text, f[:k]) {
						text, trimmed = text[:len(text)-k], true
						break
					}
				}
			}
		}
	}
	return text
}

// Body is a body as shown: its secret-named JSON fields and its secrets
// masked, then cut at n bytes (more included) with more. It is masked
// before the cut, over the shown bytes and as many more as the longest
// secret's spelling (so that a secret across the cut is masked whole),
// and a cut text never ends with the start of a secret. When truncated, b
// is only the start of a body (its reader stopped): the result is cut
// (it ends with more) even when it would fit.
func (m *Masker) Body(b []byte, n int, more string, truncated bool) string {
	if len(b) == 0 {
		return ""
	}
	forms, _ := m.secrets()
	longest := 0
	if len(forms) > 0 {
		longest = len(forms[0])
	}
	cut := truncated
	if limit := n + longest; len(b) > limit {
		b, cut = b[:limit], true
	}
	text := m.Mask(strings.ToValidUTF8(string(m.Fields(b)), "\uFFFD"))
	if !cut && len(text) <= n {
		return text
	}
	return m.cut(text, n, more)
}
