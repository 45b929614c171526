package console

import (
	"context"
	"fmt"
	"html/template"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/appkitgo/appkit/internal/store"
)

func TestParseTableQuery(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		query string
		want  tableQuery
		bad   bool
	}{
		{"", tableQuery{Type: "s/t", Page: 1, Filter: tableFilter{Op: "contains"}}, false},
		{"page=3&sort=name&desc=1&field=name&op=eq&value=x", tableQuery{Type: "s/t", Page: 3, Sort: "name", Desc: true, Filter: tableFilter{Field: "name", Op: "eq", Value: "x"}}, false},
		{"page=1000000", tableQuery{Type: "s/t", Page: maxPage, Filter: tableFilter{Op: "contains"}}, false},
		{"page=0", tableQuery{}, true},
		{"page=1000001", tableQuery{}, true},
		{"page=two", tableQuery{}, true},
		{"page=-1", tableQuery{}, true},
	} {
		q, _ := url.ParseQuery(tc.query)
		got, err := parseTableQuery("s/t", q)
		if tc.bad {
			if pe, ok := err.(*pageError); !ok || pe.Status != 400 {
				t.Errorf("%q: %v, want a 400", tc.query, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.query, got, err, tc.want)
		}
	}
}

func TestTableQueryLink(t *testing.T) {
	t.Parallel()
	plain := tableQuery{Type: "s/t", Page: 2, Filter: tableFilter{Op: "contains"}}
	filtered := tableQuery{Type: "s/t", Page: 2, Filter: tableFilter{Field: "name", Op: "eq", Value: "a&b"}}
	for _, tc := range []struct {
		tq         tableQuery
		page       int
		sort       string
		desc       bool
		want       string
		isFiltered bool
	}{
		{plain, 1, "", false, "/data/s/t", false},
		{plain, 3, "name", true, "/data/s/t?desc=1&page=3&sort=name", false},
		{tableQuery{Type: "s/t", Filter: tableFilter{Field: "name", Op: "contains"}}, 1, "", false, "/data/s/t", false},
		{filtered, 1, "due", false, "/data/s/t?field=name&op=eq&sort=due&value=a%26b", true},
	} {
		if got := tc.tq.link(tc.page, tc.sort, tc.desc); got != tc.want {
			t.Errorf("%+v link(%d, %q, %v) = %q, want %q", tc.tq, tc.page, tc.sort, tc.desc, got, tc.want)
		}
		if tc.tq.filtered() != tc.isFiltered {
			t.Errorf("%+v filtered = %v", tc.tq, !tc.isFiltered)
		}
	}
}

// FuzzParseTableQuery reads any address: the page read is within bounds,
// and the links made from it read back to the same query.
func FuzzParseTableQuery(f *testing.F) {
	f.Add("page=2&sort=name&desc=1&field=name&op=eq&value=x")
	f.Add("page=999999999999999999999&value=%00")
	f.Add("field=a&value=b&op=")
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		tq, err := parseTableQuery("s/t", q)
		if err != nil {
			return
		}
		if tq.Page < 1 || tq.Page > maxPage || tq.Filter.Op == "" {
			t.Fatalf("read %+v", tq)
		}
		link, err := url.Parse(tq.link(tq.Page, tq.Sort, tq.Desc))
		if err != nil {
			t.Fatalf("link: %v", err)
		}
		back, err := parseTableQuery("s/t", link.Query())
		if err != nil || back.Page != tq.Page || back.Sort != tq.Sort || (tq.Sort != "" && back.Desc != tq.Desc) || back.filtered() != tq.filtered() ||
			(tq.filtered() && back.Filter != tq.Filter) {
			t.Fatalf("%+v reads back as %+v (%v) from %s", tq, back, err, link)
		}
	})
}

// A row's cells stay within the page's bounds: each shows at most maxCell
// bytes of its value, the row's cells together at most maxRowCells, and
// the cells past the row's room show none of their value; every cell cut
// or left out links to its whole value, a whole value to none.
func TestTableRowsBounded(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("v", 2*maxCell)
	// The row's room holds two whole cells and part of a third.
	third := maxRowCells - 2*maxCell
	if third <= 0 || third >= maxCell {
		t.Fatalf("the test wants a row's room between two and three cells (maxCell %d, maxRowCells %d)", maxCell, maxRowCells)
	}
	type want struct {
		text         int // bytes shown
		cut, omitted bool
	}
	for _, tc := range []struct {
		name   string
		values []string
		want   []want
	}{
		{"small values whole", []string{"a", "bc"}, []want{{1, false, false}, {2, false, false}}},
		{"a large value cut to a cell", []string{big, "x"}, []want{{maxCell, true, false}, {1, false, false}}},
		{"a value of exactly a cell", []string{big[:maxCell]}, []want{{maxCell, false, false}}},
		{"the row's room spent", []string{big, big, big, big, "x"},
			[]want{{maxCell, true, false}, {maxCell, true, false}, {third, true, false}, {0, false, true}, {0, false, true}}},
		{"an empty value once the room is spent", []string{big, big, big, ""},
			[]want{{maxCell, true, false}, {maxCell, true, false}, {third, true, false}, {0, false, false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var cols []column
			row := map[string]any{"platform/id": "e1"}
			for i, v := range tc.values {
				f := &store.Field{Name: fmt.Sprintf("s/t/f%d", i), Role: store.RolePrimitive, Prim: store.TText}
				cols = append(cols, column{Field: f, Kind: "text"})
				row[f.Name] = v
			}
			rows := dataSource{}.tableRows(context.Background(), "s/t", cols, []map[string]any{row})
			if len(rows) != 1 || len(rows[0]) != len(cols) {
				t.Fatalf("%d rows", len(rows))
			}
			total := 0
			for i, ce := range rows[0] {
				w := tc.want[i]
				total += ce.size()
				if len(ce.Text) != w.text || ce.Cut != w.cut || ce.Omitted != w.omitted || !strings.HasPrefix(tc.values[i], ce.Text) {
					t.Errorf("cell %d: %d bytes, cut %v, omitted %v; want %d bytes, cut %v, omitted %v", i, len(ce.Text), ce.Cut, ce.Omitted, w.text, w.cut, w.omitted)
				}
				if wantLink := w.cut || w.omitted; (ce.Whole != "") != wantLink || wantLink && ce.Whole != valueLink("s/t", "e1", cols[i].Field.Name) {
					t.Errorf("cell %d links to %q", i, ce.Whole)
				}
			}
			if total > maxRowCells {
				t.Errorf("the row's cells hold %d bytes (bound %d)", total, maxRowCells)
			}
		})
	}
}

// A cell's bounds hold for the page as written: a value of characters
// that HTML escapes (a quote is five bytes on the page) is cut so that its
// escaped text fits, and a row's cells together stay within maxRowCells.
func TestTableRowsBoundedEscaped(t *testing.T) {
	t.Parallel()
	page := template.Must(template.New("cell").Parse(`{{.}}`))
	written := func(s string) int {
		var b strings.Builder
		if err := page.Execute(&b, s); err != nil {
			t.Fatal(err)
		}
		return b.Len()
	}
	for _, v := range []string{strings.Repeat(`"`, 2*maxCell), strings.Repeat(`<&+'`, maxCell), strings.Repeat("é\x00>", maxCell), strings.Repeat("a", 2*maxCell)} {
		var cols []column
		row := map[string]any{"platform/id": "e1"}
		for i := range 5 {
			f := &store.Field{Name: fmt.Sprintf("s/t/f%d", i), Role: store.RolePrimitive, Prim: store.TText}
			cols = append(cols, column{Field: f, Kind: "text"})
			row[f.Name] = v
		}
		rows := dataSource{}.tableRows(context.Background(), "s/t", cols, []map[string]any{row})
		total := 0
		for i, ce := range rows[0] {
			n := written(ce.Text)
			total += n
			if n > maxCell || !strings.HasPrefix(v, ce.Text) || !utf8.ValidString(ce.Text) {
				t.Errorf("%.8q: cell %d writes %d bytes (bound %d)", v, i, n, maxCell)
			}
			if !ce.Cut && !ce.Omitted || ce.Whole == "" {
				t.Errorf("%.8q: cell %d shows its value whole, or links to none", v, i)
			}
		}
		if total > maxRowCells || total < maxRowCells-5 {
			t.Errorf("%.8q: the row's cells write %d bytes (bound %d, all of it used)", v, total, maxRowCells)
		}
		if !rows[0][0].Cut || rows[0][0].Text == "" || !rows[0][4].Omitted {
			t.Errorf("%.8q: the first cell shows nothing, or the last is not left out", v)
		}
	}
}
