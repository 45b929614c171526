package console

import (
	"context"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/store"
)

// A date-time cell is readable (to the minute, UTC), its stored value in
// Raw; a value that is no date-time stays as it is.
func TestDateTimeCell(t *testing.T) {
	c := dataSource{}
	col := column{Field: &store.Field{Name: "due", Prim: store.TDateTime}, Kind: "text"}
	ctx := context.Background()
	for v, want := range map[any]cell{
		"2024-03-05T14:07:59.123+02:00":             {Text: "2024-03-05 12:07 UTC", When: "2024-03-05T12:07:59.123Z", Raw: "2024-03-05T14:07:59.123+02:00"},
		"2024-03-05T14:07:00Z":                      {Text: "2024-03-05 14:07 UTC", When: "2024-03-05T14:07:00Z", Raw: "2024-03-05T14:07:00Z"},
		time.Date(2024, 3, 5, 1, 2, 3, 0, time.UTC): {Text: "2024-03-05 01:02 UTC", When: "2024-03-05T01:02:03Z", Raw: "2024-03-05T01:02:03Z"},
		"not a date": {Text: "not a date"},
	} {
		if got := c.cellOf(ctx, ctx, col, "id", v, maxCell); got != want {
			t.Errorf("%v: %+v, want %+v", v, got, want)
		}
	}
	// A text column holding the same text is not touched.
	text := column{Field: &store.Field{Name: "note", Prim: store.TText}, Kind: "text"}
	if got := c.cellOf(ctx, ctx, text, "id", "2024-03-05T14:07:00Z", maxCell); got.When != "" || got.Text != "2024-03-05T14:07:00Z" {
		t.Errorf("text column: %+v", got)
	}
}
