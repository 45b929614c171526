package upstream

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Link is one link of an RFC 8288 Link header.
type Link struct {
	// URL is the target, as written between < and >.
	URL string
	// Rel holds the relation types, lower-cased ("next", "last", ...).
	Rel []string
}

// maxLinkHeader bounds the Link header read (a GitHub one is ~300 bytes).
const maxLinkHeader = 16 << 10

// ParseLink parses the value of a Link header (RFC 8288):
// `<url>; rel="next", <url>; rel="last"`. Parameters other than rel are
// skipped; rel may be a token or a quoted string of space-separated types.
// A value that does not follow the grammar is an error (wrapping
// [ErrBadAnswer]), never a guess.
func ParseLink(v string) ([]Link, error) {
	if len(v) > maxLinkHeader {
		return nil, fmt.Errorf("%w: Link header of %d bytes (limit %d)", ErrBadAnswer, len(v), maxLinkHeader)
	}
	var out []Link
	p := v
	for {
		p = strings.TrimLeft(p, " \t")
		if p == "" {
			return out, nil
		}
		if p[0] == ',' { // empty list elements are allowed
			p = p[1:]
			continue
		}
		if p[0] != '<' {
			return nil, linkError(v, "a link must start with <")
		}
		end := strings.IndexByte(p, '>')
		if end < 0 {
			return nil, linkError(v, "< without >")
		}
		l := Link{URL: strings.TrimSpace(p[1:end])}
		if strings.ContainsAny(l.URL, "<\"") {
			return nil, linkError(v, "a URL holds < or \"")
		}
		p = p[end+1:]
		for {
			p = strings.TrimLeft(p, " \t")
			if p == "" || p[0] == ',' {
				break
			}
			if p[0] != ';' {
				return nil, linkError(v, "a parameter must start with ;")
			}
			p = strings.TrimLeft(p[1:], " \t")
			n := 0
			for n < len(p) && isToken(p[n]) {
				n++
			}
			if n == 0 {
				return nil, linkError(v, "a parameter has no name")
			}
			name := strings.ToLower(p[:n])
			p = strings.TrimLeft(p[n:], " \t")
			var value string
			if p != "" && p[0] == '=' {
				p = strings.TrimLeft(p[1:], " \t")
				var err error
				value, p, err = paramValue(p)
				if err != nil {
					return nil, linkError(v, err.Error())
				}
			}
			if name == "rel" && l.Rel == nil {
				for _, r := range strings.Fields(value) {
					l.Rel = append(l.Rel, strings.ToLower(r))
				}
			}
		}
		out = append(out, l)
	}
}

// paramValue reads a token or a quoted string at the start of p.
func paramValue(p string) (value, rest string, err error) {
	if p != "" && p[0] == '"' {
		var b strings.Builder
		for i := 1; i < len(p); i++ {
			switch p[i] {
			case '\\':
				if i+1 >= len(p) {
					return "", "", errors.New("a quoted value ends in \\")
				}
				i++
				b.WriteByte(p[i])
			case '"':
				return b.String(), p[i+1:], nil
			default:
				b.WriteByte(p[i])
			}
		}
		return "", "", errors.New("a quoted value is not closed")
	}
	n := 0
	for n < len(p) && isToken(p[n]) {
		n++
	}
	if n == 0 {
		return "", "", errors.New("a parameter has = but no value")
	}
	return p[:n], p[n:], nil
}

// isToken reports an RFC 9110 tchar.
func isToken(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func linkError(v, why string) error {
	if len(v) > 80 {
		v = v[:80] + "..."
	}
	return fmt.Errorf("%w: Link header %q does not parse: %s", ErrBadAnswer, v, why)
}

// NextLink returns the target of the first link with rel "next", or "".
func NextLink(links []Link) string {
	for _, l := range links {
		for _, r := range l.Rel {
			if r == "next" {
				return l.URL
			}
		}
	}
	return ""
}

// RateLimitWait reads how long an upstream asks to wait from its answer's
// headers, relative to now: Retry-After (seconds or an HTTP date), then the
// IETF RateLimit headers (RateLimit: ...;t=N, or the older RateLimit-Reset:
// N and "reset=N"), then X-RateLimit-Reset (Unix seconds, or seconds when
// too small to be a date). ok is false when none says anything usable. The
// wait is never negative; the caller caps it.
func RateLimitWait(h http.Header, now time.Time) (wait time.Duration, ok bool) {
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		s, err := strconv.ParseInt(v, 10, 64)
		if err == nil && s >= 0 {
			return seconds(s), true
		}
		if errors.Is(err, strconv.ErrRange) && s > 0 { // more seconds than a Duration holds
			return seconds(maxSeconds), true
		}
		if t, err := http.ParseTime(v); err == nil {
			return nonNegative(t.Sub(now)), true
		}
	}
	if _, reset, has := ietfRateLimit(h); has && reset >= 0 {
		return seconds(reset), true
	}
	if v := strings.TrimSpace(h.Get("X-RateLimit-Reset")); v != "" {
		if s, err := strconv.ParseInt(v, 10, 64); err == nil && s >= 0 {
			if s < 1_000_000_000 { // not a Unix time: seconds from now
				return seconds(s), true
			}
			return nonNegative(time.Unix(s, 0).Sub(now)), true
		}
	}
	return 0, false
}

// RateLimitExhausted reports an answer whose headers say the rate limit is
// used up: X-RateLimit-Remaining: 0, an IETF remaining of 0, or a
// Retry-After. A 403 with it is a rate limit; without it, a refusal.
func RateLimitExhausted(h http.Header) bool {
	if strings.TrimSpace(h.Get("X-RateLimit-Remaining")) == "0" || h.Get("Retry-After") != "" {
		return true
	}
	remaining, _, has := ietfRateLimit(h)
	return has && remaining == 0
}

// ietfRateLimit reads the remaining quota and the reset (seconds) from the
// IETF headers: the structured "RateLimit: "policy";r=0;t=30" of the
// current draft, the dictionary "RateLimit: limit=10, remaining=0, reset=30"
// of earlier ones, and the separate RateLimit-Remaining and RateLimit-Reset
// fields. A value missing is -1; has is false when no header is present.
func ietfRateLimit(h http.Header) (remaining, reset int64, has bool) {
	remaining, reset = -1, -1
	if v := h.Get("RateLimit"); v != "" {
		has = true
		for _, member := range strings.Split(v, ",") {
			for _, part := range strings.Split(member, ";") {
				k, val, found := strings.Cut(strings.TrimSpace(part), "=")
				if !found {
					continue
				}
				n, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(val), `"`), 10, 64)
				if err != nil || n < 0 {
					continue
				}
				switch strings.ToLower(strings.TrimSpace(k)) {
				case "r", "remaining":
					if remaining < 0 || n < remaining {
						remaining = n
					}
				case "t", "reset":
					if n > reset {
						reset = n
					}
				}
			}
		}
	}
	if v := strings.TrimSpace(h.Get("RateLimit-Remaining")); v != "" {
		has = true
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 && (remaining < 0 || n < remaining) {
			remaining = n
		}
	}
	if v := strings.TrimSpace(h.Get("RateLimit-Reset")); v != "" {
		has = true
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 && n > reset {
			reset = n
		}
	}
	return remaining, reset, has
}

// maxSeconds keeps seconds() from overflowing a Duration.
const maxSeconds = int64(1<<63-1) / int64(time.Second)

func seconds(s int64) time.Duration {
	if s > maxSeconds {
		s = maxSeconds
	}
	return time.Duration(s) * time.Second
}

// nonNegative rounds a wait until an instant up to whole seconds (the
// instants of these headers are whole seconds), never below zero.
func nonNegative(d time.Duration) time.Duration {
	switch {
	case d <= 0:
		return 0
	case d > time.Duration(math.MaxInt64)-time.Second: // rounding up would overflow
		return d.Truncate(time.Second)
	}
	return (d + time.Second - 1).Truncate(time.Second)
}
