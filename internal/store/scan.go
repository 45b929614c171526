package store

import "database/sql"

// RowScanner is what a row scan needs: a *sql.Row or the current row of
// *sql.Rows.
type RowScanner interface{ Scan(dest ...any) error }

// ScanAll reads every row of rows with scan, in order (an empty list, not
// nil, when there are none), and closes rows. It stops at the first error
// of scan, or returns the iteration's error.
func ScanAll[T any](rows *sql.Rows, scan func(RowScanner) (T, error)) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
