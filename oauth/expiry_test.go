package oauth

import (
	"encoding/json"
	"testing"
	"time"
)

func TestParseExpiry(t *testing.T) {
	t.Parallel()
	want := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	cases := []struct {
		in      any
		want    time.Time
		wantErr bool
	}{
		{in: nil},
		{in: ""},
		{in: "  "},
		{in: "2026-11-22T09:30:00Z", want: want},
		{in: "2026-11-22T10:30:00+01:00", want: want},
		{in: "2026-11-22T09:30:00.000Z", want: want},
		{in: "2026-11-22T09:30:00.123456", want: want.Add(123456 * time.Microsecond)},
		{in: "2026-11-22T09:30:00", want: want},
		{in: "2026-11-22 09:30:00", want: want},
		{in: "2026-11-22T09:30:00+0000", want: want},
		{in: "2026-11-22T09:30Z", want: want},
		{in: "2026-11-22", want: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)},
		{in: float64(want.Unix()), want: want},
		{in: want.Unix(), want: want},
		{in: int(want.Unix()), want: want},
		{in: json.Number("1795339800"), want: want},
		{in: "1795339800000", want: want}, // milliseconds
		{in: want.In(time.FixedZone("X", 3600)), want: want},
		{in: "tomorrow", wantErr: true},
		{in: "2026-13-01T00:00:00Z", wantErr: true},
		{in: "-5", wantErr: true},
		{in: "1e300", wantErr: true},
		{in: "NaN", wantErr: true},
		{in: "0001-01-01T00:00:00Z"}, // Go's zero time: not known
		{in: "1900-01-01T00:00:00Z", wantErr: true},
		{in: true, wantErr: true},
		{in: map[string]any{}, wantErr: true},
	}
	for _, tc := range cases {
		got, err := ParseExpiry(tc.in)
		if tc.wantErr {
			if err == nil {
				t.Errorf("ParseExpiry(%#v) = %v, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("ParseExpiry(%#v) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestAccountExpiryPrefersExpireOn(t *testing.T) {
	t.Parallel()
	a, b := "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z"
	got, ok, err := accountExpiry(map[string]any{KeyExpireOn: a, KeyExpiresOn: b})
	if err != nil || !ok || FormatExpiry(got) != a {
		t.Fatalf("got %v %v %v, want expire_on %s", got, ok, err, a)
	}
	got, ok, err = accountExpiry(map[string]any{KeyExpireOn: "", KeyExpiresOn: b})
	if err != nil || !ok || FormatExpiry(got) != b {
		t.Fatalf("empty expire_on: got %v %v %v, want expires_on %s", got, ok, err, b)
	}
	if _, ok, err := accountExpiry(map[string]any{}); ok || err != nil {
		t.Fatal("no expiry reported as known")
	}
	if _, _, err := accountExpiry(map[string]any{KeyExpireOn: "soon"}); err == nil {
		t.Fatal("unreadable expiry accepted")
	}
}

func FuzzParseExpiry(f *testing.F) {
	for _, s := range []string{"2026-11-22T09:30:00Z", "2026-11-22 09:30:00.5", "1795339800", "1795339800000", "2026-11-22", "x", "9999-12-31T23:59:59-23:59"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseExpiry(s)
		if err != nil || got.IsZero() {
			return
		}
		if got.Location() != time.UTC {
			t.Fatalf("%q: %v is not UTC", s, got)
		}
		// What we write, we read back to the second.
		back, err := ParseExpiry(FormatExpiry(got))
		if err != nil || !back.Equal(got.Truncate(time.Second)) {
			t.Fatalf("%q: %v formats as %q, reads back as %v, %v", s, got, FormatExpiry(got), back, err)
		}
	})
}
