package sqlsync

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// DemoFile is the file name of the demo database in the SQLite directory:
// its account's connection string is "sqlite:demo.db".
const DemoFile = "demo.db"

// DemoQuery selects every demo customer, ordered by id.
const DemoQuery = "SELECT id, name, email, vip, since, balance, updated_at FROM customers ORDER BY id"

// DemoCustomers is the number of customers of the demo database.
const DemoCustomers = 1200

// SeedDemo writes the demo database to path (replacing any): a table
// customers of DemoCustomers rows with a column of each kind.
func SeedDemo(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=rwc")
	if err != nil {
		return fmt.Errorf("demo database: %w", err)
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("demo database: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it does nothing
	if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS customers;
		CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT, vip BOOLEAN NOT NULL,
			since DATE, balance NUMERIC, updated_at DATETIME)`); err != nil {
		return fmt.Errorf("demo database: create: %w", err)
	}
	ins, err := tx.PrepareContext(ctx, `INSERT INTO customers VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("demo database: %w", err)
	}
	defer ins.Close()
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	names := []string{"Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Tyrell"}
	for i := 1; i <= DemoCustomers; i++ {
		var email any = fmt.Sprintf("customer%d@example.com", i)
		if i%10 == 0 {
			email = nil
		}
		since := start.AddDate(0, 0, i)
		if _, err := ins.ExecContext(ctx, i, fmt.Sprintf("%s %d", names[i%len(names)], i), email, i%3 == 0,
			since.Format(time.DateOnly), float64(i*137%10000)/100, since.Add(time.Duration(i)*time.Minute).Format("2006-01-02 15:04:05")); err != nil {
			return fmt.Errorf("demo database: insert: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("demo database: %w", err)
	}
	return nil
}
