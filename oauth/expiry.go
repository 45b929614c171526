package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Keys of the account data the flows answer and read.
const (
	KeyAccessToken  = "access_token"
	KeyAccessSecret = "access_secret" // OAuth 1
	KeyRefreshToken = "refresh_token"
	KeyTokenType    = "token_type"
	// KeyExpiresOn is the expiry as the access_token steps (OAuth 1 and
	// OAuth 2) answer it.
	KeyExpiresOn = "expires_on"
	// KeyExpireOn is the expiry as the /validate refresh request and answer
	// spell it.
	KeyExpireOn = "expire_on"
	// KeySessionHandle is an OAuth 1 provider's oauth_session_handle
	// (session extension), kept for reference; no session refresh is made.
	KeySessionHandle = "session_handle"
	// KeyName is the friendly account name of a /validate answer.
	KeyName = "name"
)

// FormatExpiry writes an expiry as the flows answer it: RFC 3339 in UTC,
// whole seconds ("2026-11-22T09:30:00Z").
func FormatExpiry(t time.Time) string {
	return t.UTC().Truncate(time.Second).Format(time.RFC3339)
}

// expiryLayouts are tried in order on a string expiry. A layout without a
// zone reads the time as UTC.
var expiryLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z0700",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04",
	"2006-01-02",
}

// errExpiryRange rejects expiries outside years 1970..9999.
var errExpiryRange = errors.New("expiry out of range")

// ParseExpiry reads an expiry as an account may carry it. It is lenient:
// RFC 3339 with or without fractional seconds or zone (no zone = UTC), a
// space instead of the "T", a bare date, a time.Time, or a number (or
// numeric string) of Unix seconds, or of milliseconds when it is above
// 10^11. nil and "" mean "not known" and return the zero time and no error.
func ParseExpiry(v any) (time.Time, error) {
	switch x := v.(type) {
	case nil:
		return time.Time{}, nil
	case time.Time:
		return inRange(x)
	case string:
		return parseExpiryString(x)
	case json.Number:
		return parseExpiryString(x.String())
	case float64:
		return fromUnix(x)
	case float32:
		return fromUnix(float64(x))
	case int:
		return fromUnix(float64(x))
	case int64:
		return fromUnix(float64(x))
	}
	return time.Time{}, fmt.Errorf("expiry: unsupported value of type %T", v)
}

func parseExpiryString(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if len(s) > 64 {
		return time.Time{}, fmt.Errorf("expiry: %d characters is too long for a date-time", len(s))
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return fromUnix(f)
	}
	for _, l := range expiryLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return inRange(t)
		}
	}
	return time.Time{}, fmt.Errorf("expiry: %q is not an ISO 8601 date-time", s)
}

func fromUnix(f float64) (time.Time, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return time.Time{}, errExpiryRange
	}
	if f > 1e11 { // milliseconds: 10^11 s is year 5138, 10^11 ms is 1973
		f /= 1000
	}
	if f > 253402300799 { // 9999-12-31T23:59:59Z
		return time.Time{}, errExpiryRange
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
}

func inRange(t time.Time) (time.Time, error) {
	if t.IsZero() {
		return time.Time{}, nil
	}
	u := t.UTC()
	if u.Year() < 1970 || u.Year() > 9999 {
		return time.Time{}, errExpiryRange
	}
	return u, nil
}

// accountExpiry reads the expiry of an account: expire_on (what the service
// sends to /validate) first, then expires_on (what the access_token step
// answered). ok is false when neither is present; err is set when one is
// present but unreadable.
func accountExpiry(fields map[string]any) (t time.Time, ok bool, err error) {
	for _, k := range []string{KeyExpireOn, KeyExpiresOn} {
		v, present := fields[k]
		if !present || v == nil || v == "" {
			continue
		}
		t, err := ParseExpiry(v)
		if err != nil {
			return time.Time{}, false, err
		}
		if t.IsZero() {
			continue
		}
		return t, true, nil
	}
	return time.Time{}, false, nil
}

// str reads a string value of an account ("" when absent or not a string).
func str(fields map[string]any, key string) string {
	switch v := fields[key].(type) {
	case string:
		return strings.TrimSpace(v)
	case json.Number:
		return v.String()
	}
	return ""
}
