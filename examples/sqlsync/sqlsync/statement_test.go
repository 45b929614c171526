package sqlsync

import (
	"strings"
	"testing"
)

func TestCheckStatement(t *testing.T) {
	for _, tc := range []struct {
		q, want, err string // want: the statement kept; err: a part of the error
	}{
		{"SELECT 1 AS id", "SELECT 1 AS id", ""},
		{"  select id, name from t;  ", "select id, name from t", ""},
		{"-- a comment\nWITH x AS (SELECT 1) SELECT * FROM x;\n-- done", "-- a comment\nWITH x AS (SELECT 1) SELECT * FROM x", ""},
		{"/* a /* nested */ comment */ VALUES (1, 'a')", "/* a /* nested */ comment */ VALUES (1, 'a')", ""},
		{"TABLE customers", "TABLE customers", ""},
		{"SELECT ';' AS id, 'it''s; fine' AS name", "SELECT ';' AS id, 'it''s; fine' AS name", ""},
		{`SELECT "a;b" AS id`, `SELECT "a;b" AS id`, ""},
		{"SELECT $$ ; DELETE $$ AS id", "SELECT $$ ; DELETE $$ AS id", ""},
		{"SELECT $tag$ ; $$ ; $tag$ AS id", "SELECT $tag$ ; $$ ; $tag$ AS id", ""},
		{"SELECT $1", "SELECT $1", ""},
		{"SELECT 1 AS [a'], 2 AS id; COMMIT; PRAGMA query_only=0; --'", "", "more than one statement"},
		{"SELECT [a;b] AS id", "SELECT [a;b] AS id", ""},
		{"SELECT [open", "", "never closed"},
		{`SELECT E'\'' AS name; SELECT 2`, "", "more than one statement"},
		{`SELECT e'a\\'; SELECT 2`, "", "more than one statement"},
		{`SELECT E'it''s; \'fine\'' AS name`, `SELECT E'it''s; \'fine\'' AS name`, ""},
		{`SELECT E'open\'`, "", "never closed"},
		{`SELECT name'x' AS id`, `SELECT name'x' AS id`, ""},
		{"(SELECT 1)", "", "starts with \"(\""},
		{"DELETE FROM t", "", "starts with DELETE"},
		{"  insert into t values (1)", "", "starts with INSERT"},
		{"ATTACH DATABASE 'x' AS y", "", "starts with ATTACH"},
		{"PRAGMA query_only = 0", "", "starts with PRAGMA"},
		{"SET TRANSACTION READ WRITE", "", "starts with SET"},
		{"SELECT 1; DELETE FROM t", "", "more than one statement"},
		{"SELECT 1;; ", "", "more than one statement"},
		{"SELECT 1; -- trailing comment", "SELECT 1", ""},
		{"SELECT 'open", "", "never closed"},
		{"SELECT /* open", "", "never closed"},
		{"SELECT $x$ open", "", "never closed"},
		{"", "", "empty"},
		{"-- only a comment", "", "empty"},
		{";", "", "empty"},
		{"SELECT \x00", "", "UTF-8"},
		{"SELECT '\xff'", "", "UTF-8"},
		{"SELECT " + strings.Repeat("x", MaxQueryBytes), "", "bytes long"},
	} {
		got, err := CheckStatement(tc.q)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("CheckStatement(%.40q) = %q, %v; want an error with %q", tc.q, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("CheckStatement(%.40q) = %q, %v; want %q", tc.q, got, err, tc.want)
		}
	}
}

// A statement CheckStatement keeps starts with a reading keyword, holds no
// statement after the first, and never grows.
func FuzzCheckStatement(f *testing.F) {
	for _, s := range []string{"SELECT 1", "select 'a;b'; ", "WITH x AS (SELECT $$;$$) SELECT 1", "/* /* */ */ VALUES (1)", "SELECT 1; DROP TABLE t", "DELETE FROM t", "SELECT \"x\"\"y\"", "-- c\nTABLE t", "SELECT [a'];", `SELECT E'\'';`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		got, err := CheckStatement(q)
		if err != nil {
			if got != "" {
				t.Fatalf("an error with a statement: %q", got)
			}
			return
		}
		if len(got) > len(q) || !strings.HasPrefix(strings.TrimLeft(q, " \t\n\r\f"), got) {
			t.Fatalf("CheckStatement(%q) = %q: not a prefix of the query", q, got)
		}
		again, err := CheckStatement(got)
		if err != nil || again != got {
			t.Fatalf("CheckStatement(%q) = %q, but checking that again gives %q, %v", q, got, again, err)
		}
	})
}
