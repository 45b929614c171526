package sqlsync

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite" // also the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/appkitgo/appkit/appkit"
)

// The bounds of one query.
const (
	// StatementTimeout bounds a query's run (PostgreSQL's statement_timeout
	// and the context of both drivers).
	StatementTimeout = 10 * time.Second
	// ConnectTimeout bounds connecting and checking an account.
	ConnectTimeout = 5 * time.Second
	// maxOpen bounds the databases kept open at once.
	maxOpen = 8
	// MaxValueBytes bounds every value a query builds or reads on SQLite
	// (SQLITE_LIMIT_LENGTH on each connection): a stored value, a computed
	// one (printf('%.*c', 200000000, 'x')), a string function's result, a
	// row being sorted. A query that reaches it fails at once, before it
	// has built more, with a 400 naming the bound.
	MaxValueBytes = 1 << 20
	// MaxMessageBytes bounds each message the app reads from a PostgreSQL
	// server (a row, an error quoting a value): a longer one fails the
	// query before its body is read. PostgreSQL has no setting that bounds
	// what a statement builds on the server: a computed value is built
	// there (at most 1 GB, PostgreSQL's own limit, within StatementTimeout)
	// and the app reads only its cut ([MaxCellBytes], cut in the query).
	MaxMessageBytes = 8 << 20
	// maxErrorText bounds the database's text in an error answer.
	maxErrorText = 1 << 10
)

// Target is a parsed connection string.
type Target struct {
	// Kind is "postgres" or "sqlite".
	Kind string
	// SQLitePath is the SQLite file, inside the configured directory.
	SQLitePath string
	// Postgres is the PostgreSQL connection's configuration.
	Postgres *pgx.ConnConfig
	// Label names the database for the account's name (no password).
	Label string
}

// sqliteName is what a SQLite connection string may name: a file of the
// configured directory, nothing with a path.
var sqliteName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ParseConnection reads a connection string: a PostgreSQL URL
// (postgres://user:password@host:port/database?sslmode=...) or sqlite:FILE,
// FILE being the name of a database file in sqliteDir (empty: SQLite
// refused). The PostgreSQL connection must name a TCP host (no Unix socket
// of the app's machine), takes its password from the URL only (never from
// the app's environment or password file), and gets the read-only and
// timeout settings of every session.
func ParseConnection(conn, sqliteDir string) (*Target, error) {
	conn = strings.TrimSpace(conn)
	switch {
	case conn == "":
		return nil, errors.New("the connection string is empty")
	case len(conn) > 4096:
		return nil, errors.New("the connection string is longer than 4096 bytes")
	case strings.HasPrefix(conn, "sqlite:"):
		if sqliteDir == "" {
			return nil, errors.New("this app serves no SQLite databases (SQLSYNC_SQLITE_DIR is not set)")
		}
		name := strings.TrimPrefix(conn, "sqlite:")
		if !sqliteName.MatchString(name) || strings.Contains(name, "..") {
			return nil, fmt.Errorf("sqlite:%s: name a database file of the app's directory (letters, digits, '.', '_', '-'), not a path", name)
		}
		return &Target{Kind: "sqlite", SQLitePath: filepath.Join(sqliteDir, name), Label: "SQLite " + name}, nil
	case strings.HasPrefix(conn, "postgres://"), strings.HasPrefix(conn, "postgresql://"):
	default:
		return nil, errors.New("want postgres://user:password@host/database or sqlite:FILE")
	}
	u, err := url.Parse(conn)
	if err != nil {
		return nil, errors.New("the PostgreSQL URL does not parse")
	}
	if u.Hostname() == "" {
		return nil, errors.New("the PostgreSQL URL names no host")
	}
	q := u.Query()
	for _, k := range []string{"host", "hostaddr", "passfile", "service", "servicefile", "options", "sslkey", "sslcert", "sslrootcert", "sslpassword"} {
		if q.Has(k) {
			return nil, fmt.Errorf("the PostgreSQL URL may not set %q", k)
		}
	}
	cfg, err := pgx.ParseConfig(conn)
	if err != nil {
		// Not err's text: it may quote the URL with its password.
		return nil, errors.New("the PostgreSQL URL is not valid")
	}
	password, _ := u.User.Password()
	cfg.Password = password
	for _, h := range append([]string{cfg.Host}, fallbackHosts(cfg)...) {
		if h == "" || strings.HasPrefix(h, "/") {
			return nil, errors.New("the PostgreSQL URL must name a TCP host, not a Unix socket")
		}
	}
	cfg.ConnectTimeout = ConnectTimeout
	cfg.MaxProtocolMessageBodyLen = MaxMessageBytes
	// The extended protocol (never the simple one): the server takes one
	// statement per query and refuses a text of several.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeCacheDescribe
	cfg.RuntimeParams["default_transaction_read_only"] = "on"
	cfg.RuntimeParams["statement_timeout"] = fmt.Sprint(StatementTimeout.Milliseconds())
	cfg.RuntimeParams["idle_in_transaction_session_timeout"] = fmt.Sprint((2 * StatementTimeout).Milliseconds())
	cfg.RuntimeParams["application_name"] = "appkit-sqlsync"
	return &Target{Kind: "postgres", Postgres: cfg, Label: fmt.Sprintf("PostgreSQL %s on %s", cfg.Database, cfg.Host)}, nil
}

func fallbackHosts(cfg *pgx.ConnConfig) []string {
	var hs []string
	for _, fb := range cfg.Fallbacks {
		hs = append(hs, fb.Host)
	}
	return hs
}

// Databases opens the databases of connection strings, keeping the last
// few open.
type Databases struct {
	// SQLiteDir is the directory whose files sqlite:FILE may name; empty
	// refuses SQLite.
	SQLiteDir string
	// Timeout bounds each query; 0 means StatementTimeout (which also
	// bounds every PostgreSQL statement on the server's side).
	Timeout time.Duration

	mu    sync.Mutex
	open  map[string]*DB
	order []string // connection strings, least recently used first
}

// DB is an open database.
type DB struct {
	// Target is what the connection string said.
	Target  *Target
	db      *sql.DB
	timeout time.Duration
}

// Open returns the database of a connection string, opened read-only.
func (d *Databases) Open(ctx context.Context, conn string) (*DB, error) {
	d.mu.Lock()
	if db, ok := d.open[conn]; ok {
		d.touch(conn)
		d.mu.Unlock()
		return db, nil
	}
	d.mu.Unlock()
	t, err := ParseConnection(conn, d.SQLiteDir)
	if err != nil {
		return nil, appkit.BadRequest("connection string: %v", err)
	}
	var sdb *sql.DB
	switch t.Kind {
	case "sqlite":
		// mode=ro opens the file read-only (and fails when it does not
		// exist); _query_only refuses every write on the connection.
		dsn := "file:" + (&url.URL{Path: t.SQLitePath}).EscapedPath() + "?mode=ro&_query_only=1&_pragma=busy_timeout(1000)"
		sdb, err = sql.Open("sqlite", dsn)
		if err != nil {
			return nil, fmt.Errorf("open %s: %w", t.Label, err)
		}
	default:
		sdb = stdlib.OpenDB(*t.Postgres)
	}
	sdb.SetMaxOpenConns(2)
	sdb.SetConnMaxIdleTime(5 * time.Minute)
	db := &DB{Target: t, db: sdb, timeout: d.Timeout}
	if db.timeout <= 0 || db.timeout > StatementTimeout {
		db.timeout = StatementTimeout
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if old, ok := d.open[conn]; ok { // opened meanwhile by another request
		sdb.Close()
		return old, nil
	}
	if d.open == nil {
		d.open = map[string]*DB{}
	}
	d.open[conn] = db
	d.order = append(d.order, conn)
	if len(d.order) > maxOpen {
		oldest := d.order[0]
		d.order = d.order[1:]
		d.open[oldest].db.Close()
		delete(d.open, oldest)
	}
	return db, nil
}

// touch marks conn as the most recently used; d.mu is held.
func (d *Databases) touch(conn string) {
	for i, c := range d.order {
		if c == conn {
			d.order = append(append(d.order[:i:i], d.order[i+1:]...), conn)
			return
		}
	}
}

// Close closes every open database.
func (d *Databases) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	var errs []error
	for _, db := range d.open {
		errs = append(errs, db.db.Close())
	}
	d.open, d.order = nil, nil
	return errors.Join(errs...)
}

// Ping checks that the database answers, within ConnectTimeout.
func (db *DB) Ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	var one int
	if err := db.db.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return fmt.Errorf("%s does not answer: %w", db.Target.Label, err)
	}
	return nil
}

// Query runs the read-only statement q and hands its result to read: the
// columns (named and typed as q's result) and the rows, each text or binary
// value already cut to a little over MaxCellBytes by the database, so that
// no value larger than that is ever read into the app.
//
// "One read-only statement" holds by construction, not by [CheckStatement]
// alone (which only words the common refusals):
//   - q runs inside a SELECT that the app writes around it, in a read-only
//     transaction, on a connection that cannot write: PostgreSQL's
//     default_transaction_read_only; SQLite's file opened with mode=ro (an
//     open flag no statement can lift) and SQLITE_LIMIT_ATTACHED set to 0
//     (no ATTACH, so no second, writable handle on any file).
//   - The text sent is one statement as the database itself reads it:
//     PostgreSQL's extended protocol (pgx's default, set explicitly) refuses
//     a text of several commands; on SQLite, SQLite's own tokenizer
//     (sqlite3_complete) must find no statement end inside the text.
func (db *DB) Query(ctx context.Context, q string, read func(cols []resultColumn, rs *sql.Rows) error) error {
	q, err := CheckStatement(q)
	if err != nil {
		return appkit.BadRequest("query: %v", err)
	}
	return db.run(ctx, q, read)
}

// run is Query without the friendly check: what keeps the database
// unchanged is all here.
func (db *DB) run(ctx context.Context, q string, read func(cols []resultColumn, rs *sql.Rows) error) error {
	ctx, cancel := context.WithTimeout(ctx, db.timeout)
	defer cancel()
	conn, err := db.conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return appkit.TryLater(fmt.Errorf("%s: begin a read-only transaction: %w", db.Target.Label, err))
	}
	defer tx.Rollback() //nolint:errcheck // a read-only transaction has nothing to keep

	// The columns, from q planned but not run.
	cts, err := db.columnTypes(ctx, conn, tx, q)
	if err != nil {
		return err
	}
	if _, _, err := inferColumns(cts); err != nil {
		return err // before anything runs
	}
	text, err := db.oneStatement(cutValues(db.Target.Kind, q, cts))
	if err != nil {
		return err
	}
	rs, err := tx.QueryContext(ctx, text)
	if err != nil {
		return db.queryError(ctx, err)
	}
	defer rs.Close()
	if err := read(cts, rs); err != nil {
		return err
	}
	if err := rs.Err(); err != nil {
		return db.queryError(ctx, err)
	}
	return nil
}

// conn takes a connection of the pool for one query; on SQLite with
// SQLITE_LIMIT_ATTACHED at 0, so that no statement can ATTACH a file, and
// SQLITE_LIMIT_LENGTH at MaxValueBytes, so that no value the query builds
// or reads is larger (no SQL statement changes a limit).
func (db *DB) conn(ctx context.Context) (*sql.Conn, error) {
	conn, err := db.db.Conn(ctx)
	if err != nil {
		return nil, appkit.TryLater(fmt.Errorf("%s: connect: %w", db.Target.Label, err))
	}
	if db.Target.Kind == "sqlite" {
		for _, l := range []struct {
			id, value int
			what      string
		}{{sqlite3.SQLITE_LIMIT_ATTACHED, 0, "forbid ATTACH"}, {sqlite3.SQLITE_LIMIT_LENGTH, MaxValueBytes, "bound the values' length"}} {
			if _, err := sqlite.Limit(conn, l.id, l.value); err != nil {
				conn.Close()
				return nil, fmt.Errorf("%s: %s: %w", db.Target.Label, l.what, err)
			}
		}
	}
	return conn, nil
}

// columnTypes plans q without running it and returns its result columns:
// on SQLite, q prepared by the driver (sqlite3_column_decltype); on
// PostgreSQL, q run inside "SELECT * FROM (q) LIMIT 0".
func (db *DB) columnTypes(ctx context.Context, conn *sql.Conn, tx *sql.Tx, q string) ([]resultColumn, error) {
	if db.Target.Kind == "sqlite" {
		if _, err := db.oneStatement(q); err != nil {
			return nil, err
		}
		var cols []resultColumn
		err := conn.Raw(func(dc any) error {
			c, ok := dc.(interface {
				ColumnInfo(string) ([]sqlite.ColumnInfo, error)
			})
			if !ok {
				return fmt.Errorf("the SQLite driver's connection (%T) cannot describe a query", dc)
			}
			info, err := c.ColumnInfo(q)
			for _, ci := range info {
				cols = append(cols, resultColumn{name: ci.Name, dbType: ci.DeclType})
			}
			return err
		})
		if err != nil {
			return nil, db.queryError(ctx, err)
		}
		return cols, nil
	}
	rs, err := tx.QueryContext(ctx, "SELECT * FROM ("+q+"\n) AS sqlsync_q LIMIT 0")
	if err != nil {
		return nil, db.queryError(ctx, err)
	}
	defer rs.Close()
	cts, err := rs.ColumnTypes()
	if err != nil {
		return nil, db.queryError(ctx, err)
	}
	cols := make([]resultColumn, len(cts))
	for i, ct := range cts {
		cols[i] = resultColumn{name: ct.Name(), dbType: ct.DatabaseTypeName()}
	}
	return cols, nil
}

// oneStatement returns text when the database reads it as one statement.
func (db *DB) oneStatement(text string) (string, error) {
	if db.Target.Kind != "sqlite" {
		return text, nil // the extended protocol takes one statement only
	}
	if err := sqliteOneStatement(text); err != nil {
		return "", appkit.BadRequest("query: %v", err)
	}
	return text, nil
}

// cutValues wraps q in a SELECT of its columns that cuts every text and
// binary value to MaxCellBytes+1 (characters for text: at most four times
// that in bytes) in the database, so that convert's clip still sees that
// a value was longer. Column names are plain identifiers (inferColumns
// refuses others before any row is read), so quoting them is enough.
func cutValues(kind, q string, cts []resultColumn) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, ct := range cts {
		if i > 0 {
			b.WriteString(", ")
		}
		name := ct.name
		if !columnName.MatchString(name) {
			// Not a usable column: inferColumns refuses the query
			// before its rows are read; select something harmless.
			b.WriteString("NULL")
			continue
		}
		c := `"` + name + `"`
		switch {
		case kind == "sqlite":
			fmt.Fprintf(&b, "CASE WHEN typeof(%s) IN ('text', 'blob') THEN substr(%s, 1, %d) ELSE %s END", c, c, MaxCellBytes+1, c)
		case kindOf(ct.dbType) != kText:
			b.WriteString(c)
		case strings.EqualFold(ct.dbType, "BYTEA"):
			fmt.Fprintf(&b, "substring(%s FROM 1 FOR %d)", c, MaxCellBytes+1)
		default:
			fmt.Fprintf(&b, "left(%s::text, %d)", c, MaxCellBytes+1)
		}
		b.WriteString(" AS " + c)
	}
	b.WriteString(" FROM (" + q + "\n) AS sqlsync_q")
	return b.String()
}

// queryError turns a database's refusal of a query into a 400 answer.
func (db *DB) queryError(ctx context.Context, err error) error {
	var pe *pgconn.PgError
	var se *sqlite.Error
	var tooLong *pgproto3.ExceededMaxBodyLenErr
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded), errors.As(err, &pe) && pe.Code == "57014":
		return appkit.BadRequest("query: it did not finish within %s; narrow it down (WHERE, LIMIT)", db.timeout)
	case errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_TOOBIG:
		return appkit.BadRequest("query: a value it reads or builds is over %d MiB, the most one value may be "+
			"(values are cut at %d KiB anyway): leave that column out, or build less", MaxValueBytes>>20, MaxCellBytes>>10)
	case errors.As(err, &tooLong):
		return appkit.BadRequest("query: the server sent a message (a row, or an error quoting a value) over %d MiB, "+
			"the most the app reads: select fewer or shorter columns", MaxMessageBytes>>20)
	case errors.As(err, &pe):
		return appkit.BadRequest("query: the database refused it: %s (SQLSTATE %s)", clipError(pe.Message), pe.Code)
	case pgconn.SafeToRetry(err) || errors.Is(err, context.Canceled):
		return appkit.TryLater(err)
	}
	return appkit.BadRequest("query: the database refused it: %s", clipError(err.Error()))
}

// clipError cuts a database's error text to maxErrorText bytes: it may
// quote a value of the query.
func clipError(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	return strings.ToValidUTF8(s[:maxErrorText], "") + "…"
}
