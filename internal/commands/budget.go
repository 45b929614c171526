package commands

import (
	"github.com/appkitgo/appkit/internal/query"
)

// newAnswer is the budget of a request's answer (the brackets of its
// list of results already spent).
func newAnswer(max int) *query.Budget { return query.NewBudget(max, 2) }

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
