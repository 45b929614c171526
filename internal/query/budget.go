package query

import (
	"context"

	"github.com/appkitgo/appkit/internal/store"
)

// NameAnswerTooLarge names the refusal of a request whose answer would
// cross its Budget (the command API answers it as is; GraphQL as
// ANSWER_TOO_LARGE).
const NameAnswerTooLarge = "request.error/too-large"

// ErrAnswerTooLarge matches (errors.Is) every refusal named
// NameAnswerTooLarge, and so every error a Budget returns.
var ErrAnswerTooLarge = &store.Error{Name: NameAnswerTooLarge}

// Budget is what the answer of one request may still take, measured as its
// JSON encoding, against a bound (MaxAnswerBytes, or the API's own): every
// result is spent as it is produced, so a read or a change whose result
// would cross the bound fails before the answer is built. The command API
// and GraphQL each keep one per request.
type Budget struct {
	max   int
	spent int
	// over is set once a result crossed the bound; the rest of the request
	// is not run.
	over bool
}

// NewBudget is a budget of max bytes of which spent are already taken.
func NewBudget(max, spent int) *Budget { return &Budget{max: max, spent: spent} }

// Max is the bound.
func (b *Budget) Max() int { return b.max }

// Left is what remains of the bound (negative once crossed).
func (b *Budget) Left() int { return b.max - b.spent }

// Over reports whether a result crossed the bound.
func (b *Budget) Over() bool { return b.over }

// Err is the budget's refusal.
func (b *Budget) Err() error {
	return store.Errorf(NameAnswerTooLarge, map[string]any{"max-bytes": b.max},
		"the answer would be larger than %d bytes; split the request or page through large queries with q/limit and q/offset", b.max)
}

// Spend spends n bytes, failing with Err past the bound.
func (b *Budget) Spend(n int) error {
	b.spent += n
	if b.spent > b.max {
		b.over = true
		return b.Err()
	}
	return nil
}

// SpendValue spends the encoded size of v.
func (b *Budget) SpendValue(v any) error { return b.Spend(EncodedSize(v)) }

// BudgetMark is a budget's state, to go back to (Reset) when what was
// spent since is not in the answer after all.
type BudgetMark struct {
	spent int
	over  bool
}

// Mark is the budget's state now.
func (b *Budget) Mark() BudgetMark { return BudgetMark{spent: b.spent, over: b.over} }

// Refund gives back what was spent since m (results that are not in the
// answer after all); that the bound was crossed stays.
func (b *Budget) Refund(m BudgetMark) { b.spent = m.spent }

// Charge counts n bytes the answer takes whatever happens (a separator, a
// failure's report): it does not refuse them.
func (b *Budget) Charge(n int) { b.spent += n }

// Spent is what the answer takes so far.
func (b *Budget) Spent() int { return b.spent }

// Reset goes back to a state Mark returned.
func (b *Budget) Reset(m BudgetMark) { b.spent, b.over = m.spent, m.over }

// Run runs the plan so that it stops as soon as its result would not fit
// in what is left of the budget (p's own bound, when lower, stays and
// refuses with NameTooLarge); it does not spend the result, whose size it
// returns as RunSized does.
func (b *Budget) Run(ctx context.Context, db store.Querier, p *Plan) ([]map[string]any, int, error) {
	if b.Left() <= 0 {
		b.over = true
		return nil, 0, b.Err()
	}
	lowered := b.Left() <= p.MaxBytes
	if lowered {
		p.MaxBytes = b.Left()
	}
	rows, size, err := p.RunSized(ctx, db)
	if e, ok := store.AsError(err); ok && lowered && e.Name == NameTooLarge && e.Data["max-bytes"] != nil {
		b.over = true
		return nil, 0, b.Err()
	}
	return rows, size, err
}
