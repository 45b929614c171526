package query

// Bounds of one query's shape, checked by Compile before anything runs
// (both the command API and GraphQL decode into a Query, so both get them).
const (
	// MaxSelectDepth is how deep select lists nest: the sub-lists of
	// objects and collections at most MaxSelectDepth below the top list.
	MaxSelectDepth = 8
	// MaxPathFields is how far one condition of a filter reaches: the
	// fields of its path plus those of the q/some and q/none paths it sits
	// in (the relations it follows and the compared field).
	MaxPathFields = 8
)

// checkShape refuses a query whose select lists nest deeper than
// MaxSelectDepth or whose conditions reach further than MaxPathFields.
func checkShape(q *Query) error {
	return checkSelects(q.Select, 0, q.Where)
}

func checkSelects(items []Select, depth int, where *Filter) error {
	if depth > MaxSelectDepth {
		return qerr("select nested deeper than %d", MaxSelectDepth)
	}
	if n := reach(where); n > MaxPathFields {
		return qerr("a filter reaches %d fields deep through relations; at most %d", n, MaxPathFields)
	}
	for _, it := range items {
		if len(it.Sub) > 0 || it.Where != nil {
			if err := checkSelects(it.Sub, depth+1, it.Where); err != nil {
				return err
			}
		}
	}
	return nil
}

// reach is how many fields deep the furthest condition of f reaches.
func reach(f *Filter) int {
	if f == nil {
		return 0
	}
	n := 0
	for _, s := range f.Sub {
		n = max(n, reach(s))
	}
	switch f.Op {
	case OpAnd, OpOr:
		return n
	case OpSome, OpNone:
		return len(f.Path.Fields) + n
	}
	return len(f.Path.Fields)
}
