package store

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// One suite for the SQL operations of Dialect, run over every engine: each
// method's SQL is run on the engine and its result checked, so that the
// callers (the query compiler, GraphQL, auth, documents, apps) get the same
// answer whichever engine they run on.
func TestDialectConformance(t *testing.T) {
	eachEngine(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		d, db := s.Dialect(), s.DB()
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.ExecContext(ctx, d.Rebind(q), args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		exec("CREATE TABLE dc (id BIGINT PRIMARY KEY, amount " + SQLType(d, TDecimal) + ", done " + SQLType(d, TBool) + ", name " + SQLType(d, TText) + ")")
		for i, amount := range []string{"2.5", "10", "-1", "0.25", "7"} {
			exec("INSERT INTO dc (id, amount, done, name) VALUES (?, ?, ?, ?)", int64(i+1), amount, i%2 == 0, "item "+amount)
		}
		ids := func(t *testing.T, q string, args ...any) []int64 {
			t.Helper()
			rows, err := db.QueryContext(ctx, d.Rebind(q), args...)
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			defer rows.Close()
			var out []int64
			for rows.Next() {
				var id int64
				if err := rows.Scan(&id); err != nil {
					t.Fatal(err)
				}
				out = append(out, id)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			return out
		}
		one := func(t *testing.T, dst any, q string, args ...any) {
			t.Helper()
			if err := db.QueryRowContext(ctx, d.Rebind(q), args...).Scan(dst); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}

		t.Run("OffsetWithoutLimit", func(t *testing.T) {
			got := ids(t, "SELECT id FROM dc ORDER BY id"+d.OffsetWithoutLimit()+"?", int64(3))
			if want := []int64{4, 5}; !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		})
		t.Run("BigInt and Float", func(t *testing.T) {
			var sum, avg any
			one(t, &sum, "SELECT "+d.BigInt("COALESCE(SUM(id), 0)")+" FROM dc")
			one(t, &avg, "SELECT "+d.Float("AVG(id)")+" FROM dc")
			if sum != int64(15) || avg != float64(3) {
				t.Errorf("sum %#v, avg %#v; want int64 15, float64 3", sum, avg)
			}
		})
		t.Run("JSON", func(t *testing.T) {
			obj := d.JSONObject("'id', x.id, 'inner', " + d.JSONValue(d.JSONObject("'name', x.name")))
			q := func(where string) string {
				return "SELECT " + d.JSONText("(SELECT "+d.JSONArrayAgg(obj, "x.id DESC")+" FROM dc x WHERE "+where+")")
			}
			var text string
			one(t, &text, q("x.id > ?"), int64(3))
			var got []map[string]any
			if err := json.Unmarshal([]byte(text), &got); err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			want := []map[string]any{
				{"id": float64(5), "inner": map[string]any{"name": "item 7"}},
				{"id": float64(4), "inner": map[string]any{"name": "item 0.25"}},
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %s, want %v", text, want)
			}
			one(t, &text, q("1 = 0"))
			if text != "[]" {
				t.Errorf("no rows: %q, want []", text)
			}
		})
		t.Run("Decimal", func(t *testing.T) {
			// By number, not as text ("10" < "2.5" as text).
			got := ids(t, "SELECT id FROM dc WHERE "+d.DecimalColumn("amount")+" > "+d.CastDecimal("?")+" ORDER BY "+d.DecimalColumn("amount"), "2")
			if want := []int64{1, 5, 2}; !reflect.DeepEqual(got, want) {
				t.Errorf("amount > 2: %v, want %v", got, want)
			}
			for _, c := range []struct{ fn, where, want string }{
				{"SUM", "1 = 1", "18.75"},
				{"MAX", "1 = 1", "10"},
				{"MIN", "1 = 1", "-1"},
				{"SUM", "1 = 0", "0"},
			} {
				var v any
				one(t, &v, "SELECT COALESCE("+d.DecimalAggregate(c.fn, "amount")+", "+d.DecimalZero()+") FROM dc WHERE "+c.where)
				if got := OutScalar(TDecimal, v); got != c.want {
					t.Errorf("%s where %s: %#v (%#v), want %s", c.fn, c.where, got, v, c.want)
				}
			}
		})
		t.Run("AggregatesBool", func(t *testing.T) {
			var v any
			err := db.QueryRowContext(ctx, "SELECT MAX(done) FROM dc").Scan(&v)
			if (err == nil) != d.AggregatesBool() {
				t.Errorf("MAX of a boolean: %v, AggregatesBool %v", err, d.AggregatesBool())
			}
		})
		t.Run("TextPosition", func(t *testing.T) {
			for _, c := range []struct {
				needle string
				want   int64
			}{{"item", 1}, {"0.25", 6}, {"nope", 0}} {
				var n int64
				one(t, &n, "SELECT "+d.TextPosition("name", "?")+" FROM dc WHERE id = 4", c.needle)
				if n != c.want {
					t.Errorf("position of %q: %d, want %d", c.needle, n, c.want)
				}
			}
		})
		t.Run("BlobType", func(t *testing.T) {
			data := []byte{0, 1, 0xff, 'x', 0}
			exec("CREATE TABLE dc_blob (data " + d.BlobType() + " NOT NULL)")
			exec("INSERT INTO dc_blob (data) VALUES (?)", data)
			var got []byte
			one(t, &got, "SELECT data FROM dc_blob")
			if !bytes.Equal(got, data) {
				t.Errorf("read back %v, want %v", got, data)
			}
		})
		t.Run("LockRows and ClaimRows", func(t *testing.T) {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			var first int64
			if err := tx.QueryRowContext(ctx, "SELECT id FROM dc ORDER BY id LIMIT 1"+d.ClaimRows()).Scan(&first); err != nil || first != 1 {
				t.Fatalf("claim: %d, %v", first, err)
			}
			var locked int64
			if err := tx.QueryRowContext(ctx, d.Rebind("SELECT id FROM dc WHERE id = ?"+d.LockRows()), int64(2)).Scan(&locked); err != nil || locked != 2 {
				t.Fatalf("lock: %d, %v", locked, err)
			}
			if d.Name() != "postgres" {
				return // one write transaction at a time: nothing to pass over
			}
			// Another transaction's claim passes over the rows this one
			// claimed or locked.
			tx2, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tx2.Rollback()
			// A claim that waits fails instead of hanging the test.
			if _, err := tx2.ExecContext(ctx, "SET LOCAL lock_timeout = '10s'"); err != nil {
				t.Fatal(err)
			}
			var next int64
			if err := tx2.QueryRowContext(ctx, "SELECT id FROM dc ORDER BY id LIMIT 1"+d.ClaimRows()).Scan(&next); err != nil || next != 3 {
				t.Errorf("claim while rows 1 and 2 are locked: %d, %v; want 3", next, err)
			}
		})
		t.Run("SharedClockSQL", func(t *testing.T) {
			q := d.SharedClockSQL()
			if q == "" {
				if d.Name() == "postgres" {
					t.Error("processes sharing the database have no shared clock")
				}
				return
			}
			before := time.Now().UnixMilli()
			var ms int64
			one(t, &ms, q)
			// The server runs on another clock: only its unit and era
			// are checked (within an hour of this process's).
			if diff := ms - before; diff < -3600_000 || diff > 3600_000 {
				t.Errorf("database clock %d ms, this process %d ms", ms, before)
			}
		})
	})
}
