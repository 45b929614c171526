package sqlsync

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit"
)

func TestKindOf(t *testing.T) {
	for dbType, want := range map[string]kind{
		"INT4": kInteger, "bigint": kInteger, "INTEGER": kInteger, "NUMERIC": kNumber, "decimal(10, 2)": kNumber, "FLOAT8": kNumber,
		"BOOL": kBool, "boolean": kBool, "DATE": kDay, "TIMESTAMPTZ": kTime, "DATETIME": kTime,
		"TEXT": kText, "": kText, "INTERVAL": kText, "POINT": kText, "_TEXT": kText, "UUID": kText,
	} {
		if got := kindOf(dbType); got != want {
			t.Errorf("kindOf(%q) = %v, want %v", dbType, got, want)
		}
	}
}

func TestConvert(t *testing.T) {
	day := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 3600))
	for _, tc := range []struct {
		k    kind
		in   any
		want any
		err  string
	}{
		{kText, "a", "a", ""},
		{kText, []byte("bytes"), "bytes", ""},
		{kText, []byte{0xff, 0x00}, `\xff00`, ""},
		{kText, int64(7), "7", ""},
		{kText, 2.5, "2.5", ""},
		{kText, true, "true", ""},
		{kID, int64(42), "42", ""},
		{kInteger, int64(3), int64(3), ""},
		{kInteger, 3.0, int64(3), ""},
		{kInteger, "12", int64(12), ""},
		{kInteger, 3.5, nil, "not a whole number"},
		{kInteger, "abc", nil, "not a number"},
		{kNumber, "12.50", 12.5, ""},
		{kNumber, int64(2), 2.0, ""},
		{kNumber, math.NaN(), nil, ""},
		{kNumber, []byte{0xff}, nil, "binary data"},
		{kBool, int64(1), true, ""},
		{kBool, "f", false, ""},
		{kBool, "maybe", nil, "yes/no"},
		{kDay, day, appkit.Day{Year: 2026, Month: 3, Day: 4}, ""},
		{kDay, "2026-03-04", appkit.Day{Year: 2026, Month: 3, Day: 4}, ""},
		{kTime, day, day.UTC(), ""},
		{kTime, "2026-03-04 05:06:07", time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC), ""},
		{kTime, "soon", nil, "not a date"},
	} {
		got, err := convert(tc.k, tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("convert(%v, %#v) = %#v, %v; want an error with %q", tc.k, tc.in, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("convert(%v, %#v) = %#v, %v; want %#v", tc.k, tc.in, got, err, tc.want)
		}
	}
	long := strings.Repeat("é", MaxCellBytes)
	got, _ := convert(kText, long)
	if s := got.(string); len(s) > MaxCellBytes || !strings.HasSuffix(s, "…") || !strings.HasPrefix(s, "éé") {
		t.Errorf("a long text was not clipped at a character: %d bytes", len(s))
	}
}

func TestWords(t *testing.T) {
	for in, want := range map[string]string{"updated_at": "Updated at", "ID": "Id", "_x_": "X", "__": "__", "name": "Name"} {
		if got := words(in); got != want {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}

// ParseConnection never panics, keeps SQLite inside its directory, and
// never lets PostgreSQL reach a Unix socket or carry a password that the
// URL does not hold.
func FuzzParseConnection(f *testing.F) {
	for _, s := range []string{"sqlite:demo.db", "sqlite:../x", "postgres://u:p@h:5432/d?sslmode=disable", "postgresql://u@h,h2/d", "postgres://u@%2Ftmp/d", "postgres://[::1]/d?connect_timeout=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, conn string) {
		tg, err := ParseConnection(conn, "/srv/db")
		if err != nil {
			return
		}
		switch tg.Kind {
		case "sqlite":
			if !strings.HasPrefix(tg.SQLitePath, "/srv/db/") || strings.Contains(tg.SQLitePath[len("/srv/db/"):], "/") || strings.Contains(tg.SQLitePath, "..") {
				t.Fatalf("%q: SQLite path %q", conn, tg.SQLitePath)
			}
		case "postgres":
			if strings.HasPrefix(tg.Postgres.Host, "/") || tg.Postgres.Host == "" {
				t.Fatalf("%q: host %q", conn, tg.Postgres.Host)
			}
			if tg.Postgres.Password != "" && !strings.Contains(conn, tg.Postgres.Password) && !strings.Contains(conn, "%") {
				t.Fatalf("%q: a password that the URL does not hold", conn)
			}
			if tg.Postgres.RuntimeParams["default_transaction_read_only"] != "on" {
				t.Fatalf("%q: not read-only", conn)
			}
		default:
			t.Fatalf("%q: kind %q", conn, tg.Kind)
		}
	})
}
