package auth

import (
	"errors"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

func TestOptionsWithDefaults(t *testing.T) {
	t.Parallel()
	o := Options{}.WithDefaults()
	if o.PasswordCost != bcrypt.DefaultCost || o.SessionTTL != DefaultSessionTTL ||
		o.MaxPasswordChecks != DefaultPasswordChecks() || o.Now == nil || o.Throttle != nil {
		t.Errorf("defaults not filled: %+v", o)
	}
	set := Options{PasswordCost: 99, SessionTTL: -time.Hour, MaxPasswordChecks: 3}.WithDefaults()
	if set.PasswordCost != 99 || set.SessionTTL != -time.Hour || set.MaxPasswordChecks != 3 {
		t.Errorf("set values were changed: %+v", set)
	}
}

func TestOptionsValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		o    Options
		want []string // nil when valid
	}{
		{"zero", Options{}, nil},
		{"tests' cost", Options{PasswordCost: bcrypt.MinCost}, nil},
		{"cost too low", Options{PasswordCost: 1}, []string{"password cost 1"}},
		{"cost too high", Options{PasswordCost: bcrypt.MaxCost + 1}, []string{"password cost"}},
		{"session", Options{SessionTTL: -time.Second}, []string{"SessionTTL"}},
		{"short session", Options{SessionTTL: time.Millisecond}, []string{"SessionTTL"}},
		{"checks", Options{MaxPasswordChecks: -1}, []string{"MaxPasswordChecks"}},
		{"every problem at once", Options{PasswordCost: 1, SessionTTL: -1, MaxPasswordChecks: -1},
			[]string{"password cost", "SessionTTL", "MaxPasswordChecks"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.WithDefaults().validate()
			if tc.want == nil {
				if err != nil {
					t.Errorf("valid options refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("want an ErrInvalid, got %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q not reported: %v", w, err)
				}
			}
		})
	}
}
