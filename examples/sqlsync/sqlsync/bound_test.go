package sqlsync

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/appkitgo/appkit/appkit"
)

// wantBadRequest checks that err is a 400 whose message holds want.
func wantBadRequest(t *testing.T, what string, err error, want string) {
	t.Helper()
	var ae *appkit.Error
	if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, want) {
		t.Errorf("%s: %v, want a 400 saying %q", what, err, want)
	}
}

// On SQLite no value a query builds or reads may pass MaxValueBytes: a
// computed value (the review's printf('%.*c', 200000000, 'x') built 900
// MiB before the cut) fails as soon as it would, with a message naming
// the bound, and the connection serves the next query.
func TestQuery_valueBoundSQLite(t *testing.T) {
	t.Parallel()
	dbs, _, dir := demoDB(t)
	rw, err := sql.Open("sqlite", "file:"+filepath.Join(dir, DemoFile))
	if err != nil {
		t.Fatal(err)
	}
	_, err = rw.ExecContext(context.Background(), fmt.Sprintf("CREATE TABLE stored (v TEXT); INSERT INTO stored VALUES (printf('%%.*c', %d, 'x'))", 2*MaxValueBytes))
	rw.Close()
	if err != nil {
		t.Fatal(err)
	}
	acc := appkit.Account{ConnectionField: "sqlite:" + DemoFile}
	over := 4 * MaxValueBytes
	want := fmt.Sprintf("over %d MiB", MaxValueBytes>>20)
	for name, q := range map[string]string{
		"computed":              fmt.Sprintf("SELECT 1 AS id, printf('%%.*c', %d, 'x') AS name", over),
		"computed, then cut":    fmt.Sprintf("SELECT 1 AS id, substr(printf('%%.*c', %d, 'x'), 1, 10) AS name", over),
		"computed, then length": fmt.Sprintf("SELECT 1 AS id, 'n' AS name, length(zeroblob(%d) || 'x') AS n", over),
		"aggregated":            fmt.Sprintf("SELECT 1 AS id, 'n' AS name, length(group_concat(printf('%%.*c', %d, 'x'))) AS n FROM customers", MaxValueBytes/8),
		"stored, even cut":      "SELECT 1 AS id, 'n' AS name, substr(v, 1, 10) AS v FROM stored",
	} {
		_, err := page(context.Background(), dbs, acc, q, 0)
		wantBadRequest(t, name, err, want)
		_, _, err = columns(context.Background(), dbs, acc, q)
		wantBadRequest(t, name+" (filter/validate)", err, want)
	}
	// Under the bound, a computed value is built and cut as before.
	p, err := page(context.Background(), dbs, acc, fmt.Sprintf("SELECT 1 AS id, printf('%%.*c', %d, 'x') AS name", MaxValueBytes-1), 0)
	if err != nil || len(p.Items) != 1 || len(p.Items[0]["name"].(string)) > MaxCellBytes {
		t.Fatalf("a value under the bound: %v", err)
	}
}

// On PostgreSQL a server message over MaxMessageBytes (here an error
// quoting a 9 MiB value) is refused unread, the pool serves the next
// query, and an error's text is cut in the answer.
func TestQuery_messageBoundPostgres(t *testing.T) {
	t.Parallel()
	dsn := os.Getenv("APPKIT_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("APPKIT_TEST_POSTGRES is not set")
	}
	dbs := &Databases{}
	defer dbs.Close()
	acc := appkit.Account{ConnectionField: dsn}
	q := fmt.Sprintf("SELECT 1 AS id, 'n' AS name, repeat('x', %d)::int AS n", MaxMessageBytes+(1<<20))
	_, err := page(context.Background(), dbs, acc, q, 0)
	wantBadRequest(t, "an error of 9 MiB", err, fmt.Sprintf("over %d MiB", MaxMessageBytes>>20))
	if p, err := page(context.Background(), dbs, acc, "SELECT 1 AS id, 'n' AS name", 0); err != nil || len(p.Items) != 1 {
		t.Fatalf("the next query: %v", err)
	}
	_, err = page(context.Background(), dbs, acc, "SELECT 1 AS id, 'n' AS name, repeat('x', 100000)::int AS n", 0)
	wantBadRequest(t, "an error of 100 KB", err, "invalid input syntax")
	if err != nil && len(err.Error()) > 2*maxErrorText {
		t.Errorf("an error answer of %d bytes: the database's text is not cut", len(err.Error()))
	}
}
