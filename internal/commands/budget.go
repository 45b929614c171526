package commands

import (
	"github.com/appkitgo/appkit/internal/query"
	"github.com/appkitgo/appkit/internal/store"
)

// answer tracks the size of a request's answer, measured as its JSON
// encoding, against a bound: every result is spent as it is produced, so a
// command whose result would cross the bound fails before the answer is
// built.
type answer struct {
	max   int
	spent int
	// over is set once a command crossed the bound; later commands of the
	// request are not run.
	over bool
}

func newAnswer(max int) *answer { return &answer{max: max, spent: 2} } // the brackets

// left is what remains of the bound.
func (b *answer) left() int { return b.max - b.spent }

func (b *answer) err() error {
	return store.Errorf(NameTooLarge, map[string]any{"max-bytes": b.max},
		"the answer would be larger than %d bytes; split the request or page through large queries with q/limit and q/offset", b.max)
}

// add spends n bytes, failing with request.error/too-large past the bound.
func (b *answer) add(n int) error {
	b.spent += n
	if b.spent > b.max {
		b.over = true
		return b.err()
	}
	return nil
}

// spend spends the encoded size of a command's result value.
func (b *answer) spend(v any) error { return b.add(query.EncodedSize(v)) }

// Sizes of the JSON around a result: {"success":true,"result":...}.
const (
	resultTrue  = len(`{"success":true,"result":}`)
	resultFalse = len(`{"success":false,"result":}`)
)

// errorSize is the encoded size of a failed command's result.
func errorSize(e ErrorBody) int {
	data := e.Data
	if data == nil {
		data = map[string]any{}
	}
	return resultFalse + len(`{"name":,"message":,"data":}`) +
		query.EncodedSize(e.Name) + query.EncodedSize(e.Message) + query.EncodedSize(data)
}
