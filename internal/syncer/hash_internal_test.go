package syncer

import (
	"bytes"
	"testing"
)

// Different rows never hash the same bytes: each value carries its kind
// and strings and lists their lengths, so no value (or column id) can run
// into the next one.
func TestAppendHashedIsUnambiguous(t *testing.T) {
	t.Parallel()
	rows := [][]any{
		{"a", ""}, {"", "a"}, {"ab"}, {"a", "b"}, {"a", "sb"}, {"as", "b"},
		{"1"}, {int64(1)}, {int64(1), int64(2)}, {int64(12)},
		{nil}, {""}, {false}, {true}, {"t"}, {"f"}, {"n"},
		{[]string{"a", "b"}}, {[]string{"ab"}}, {[]string{}}, {[]string{""}}, {[]string{"a"}, "b"},
		{[2]any{nil, "x"}}, {[2]any{"x", nil}}, {[2]any{int64(1), int64(2)}}, {[2]any{nil, nil}},
		{3.5}, {"3.5"}, {"s1:a"},
	}
	seen := map[string]int{}
	for i, r := range rows {
		var b []byte
		for _, v := range r {
			b = appendHashed(b, v)
		}
		if j, dup := seen[string(b)]; dup {
			t.Errorf("rows %v and %v hash the same bytes %q", rows[j], r, b)
		}
		seen[string(b)] = i
	}
	if !bytes.Equal(appendHashed(nil, []string{"a"}), appendHashed(nil, []string{"a"})) {
		t.Error("the same value appends different bytes")
	}
}
