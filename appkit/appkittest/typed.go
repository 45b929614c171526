package appkittest

import (
	"encoding/json"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/protocol"
)

// Value is a typed value for one declared handle (a filter, an account
// field or an action argument) in the wire form the service sends it:
// build it with [FilterValue], [AccountValue] or [ArgValue], and make a
// request's map of them with [Values]. A test then names no filter,
// field or argument by a string the app declared.
type Value struct {
	id   string
	wire any
	err  error
}

// wireOf converts v to its JSON form (a Day to "YYYY-MM-DD", a date range
// to {_min, _max}, ...).
func wireOf(id string, v any) Value {
	b, err := json.Marshal(v)
	if err != nil {
		return Value{id: id, err: err}
	}
	var w any
	err = json.Unmarshal(b, &w)
	return Value{id: id, wire: w, err: err}
}

// FilterValue is the value v of filter f.
func FilterValue[T any](f *appkit.FilterOf[T], v T) Value { return wireOf(f.ID(), v) }

// AccountValue is the value v of the account field f.
func AccountValue[T any](f appkit.AccountFieldOf[T], v T) Value { return wireOf(f.ID(), v) }

// ArgValue is the value v of the action argument a.
func ArgValue[T any](a appkit.ArgOf[T], v T) Value { return wireOf(a.ID(), v) }

// Values returns the values as a map by id, in their wire form: an
// account (Client.Account), the filter of a [Run] or a [Webhook], an
// action's args. It panics on a value that does not encode to JSON (a
// mistake in the test itself).
func Values(vs ...Value) map[string]any {
	out := make(map[string]any, len(vs))
	for _, v := range vs {
		if v.err != nil {
			panic("appkittest: the value of " + v.id + " does not encode: " + v.err.Error())
		}
		out[v.id] = v.wire
	}
	return out
}

// Items walks every page of run.Type like [Client.SyncAll], with every
// check, and returns the items decoded into T, the type's item struct
// (see appkit.DecodeItem): typed values out, integers read exactly (the
// pages' numbers are decoded as json.Number). An item that does not decode
// fails the test.
func Items[T any](c *Client, run Run) []T {
	c.t.Helper()
	out := []T{}
	for _, p := range c.sync(run, true) {
		for _, m := range p.Items {
			it, err := appkit.DecodeItem[T](m)
			if err != nil {
				c.t.Fatalf("appkittest: %s item %d: %v", run.Type, len(out), err)
			}
			out = append(out, it)
		}
	}
	return out
}

// Options returns the options of the datalist filter f, given the values
// of the filters it requires.
func Options[T any](c *Client, f *appkit.FilterOf[T], dependsOn ...Value) []protocol.DatalistItem {
	c.t.Helper()
	return c.Datalist(f.ID(), Values(dependsOn...))
}

// ExecuteAction runs the action with typed arguments and returns the answer
// (200 {} on success).
func ExecuteAction(c *Client, action string, args ...Value) Response {
	c.t.Helper()
	return c.Execute(action, Values(args...))
}
