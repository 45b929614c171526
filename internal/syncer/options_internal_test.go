package syncer

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestOptionsWithDefaults(t *testing.T) {
	t.Parallel()
	o := Options{}.WithDefaults()
	if o.RequestTimeout != DefaultRequestTimeout || o.MaxBody != DefaultMaxBody || o.CommitItems != DefaultCommitItems ||
		o.CommitEvery != DefaultCommitEvery || o.MaxPages != DefaultMaxPages || o.MaxEmptyPages != DefaultMaxEmptyPages ||
		o.MaxRunTime != DefaultMaxRunTime || o.Retry != DefaultRetry || o.Now == nil || o.Log == nil {
		t.Errorf("defaults not filled: %+v", o)
	}
	o.Log("dropped")
	set := Options{RequestTimeout: time.Second, CommitItems: 1, MaxPages: -1, Retry: Retry{Attempts: 1}}.WithDefaults()
	if set.RequestTimeout != time.Second || set.CommitItems != 1 || set.MaxPages != -1 || set.Retry != (Retry{Attempts: 1}) {
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
		{"space", Options{Space: "crm-2"}, nil},
		{"bad space", Options{Space: "Not A Space"}, []string{"the space"}},
		{"timeout", Options{RequestTimeout: -1}, []string{"RequestTimeout"}},
		{"body", Options{MaxBody: -1}, []string{"MaxBody"}},
		{"commit items", Options{CommitItems: -1}, []string{"CommitItems"}},
		{"commit every", Options{CommitEvery: -1}, []string{"CommitEvery"}},
		{"pages", Options{MaxPages: -1}, []string{"MaxPages"}},
		{"empty pages", Options{MaxEmptyPages: -1}, []string{"MaxEmptyPages"}},
		{"run time", Options{MaxRunTime: -1}, []string{"MaxRunTime"}},
		{"retry", Options{Retry: Retry{Attempts: -1, Base: -1, Max: -1}}, []string{"Retry.Attempts", "Retry.Base", "Retry.Max"}},
		{"every problem at once", Options{Space: "-", RequestTimeout: -1, MaxBody: -1, CommitItems: -1, MaxPages: -1, MaxRunTime: -1},
			[]string{"the space", "RequestTimeout", "MaxBody", "CommitItems", "MaxPages", "MaxRunTime"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.o.WithDefaults().validate()
			if tc.want == nil {
				if err != nil {
					t.Errorf("valid options refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrOptions) {
				t.Fatalf("want an ErrOptions, got %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q not reported: %v", w, err)
				}
			}
		})
	}
}
