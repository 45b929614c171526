package conformance

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/appkitgo/appkit/appkit/protocol"
)

var webhookChecks = []string{CheckWebhookInstall, CheckWebhookDelete, CheckWebhookRefused, CheckWebhookVerify, CheckWebhookTransform}

// checkWebhooks installs a webhook, deletes it again, and sends a verify and
// a transform of an empty event, when the config announces webhooks.
func (r *runner) checkWebhooks(ctx context.Context) {
	if r.config == nil || r.config.Webhooks == nil || !r.config.Webhooks.Enabled {
		r.skipAll(webhookChecks, "the config does not announce webhooks")
		return
	}
	hook, refused := r.checkWebhookInstall(ctx)
	r.checkWebhookDelete(ctx, hook, refused)
	event := map[string]any{"params": map[string]any{}, "payload": map[string]any{}}
	r.checkWebhookVerify(ctx, event)
	r.checkWebhookTransform(ctx, event)
}

// webhookBody is a webhook request's body: the types, filter and account
// of the run, and extra.
func (r *runner) webhookBody(extra map[string]any) map[string]any {
	m := map[string]any{"types": r.syncTypes(), "filter": r.filterValues(), "account": r.account}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// checkWebhookInstall installs a webhook: the webhook object answered
// (nil when none was installed), and whether the install was refused.
func (r *runner) checkWebhookInstall(ctx context.Context) (hook map[string]any, refused bool) {
	a := r.post(ctx, protocol.PathWebhooks, r.webhookBody(map[string]any{"url": webhookTarget, "webhook": nil}))
	hook, err := decodeMap(a)
	switch {
	case !a.ok():
		r.skip(CheckWebhookInstall, "", "no answer (see transport.answers)")
	case a.status >= 400:
		// The protocol lets an install fail (its body is
		// errors.message-body's business).
		r.skip(CheckWebhookInstall, "", "the install was refused (see webhooks.refused)")
		r.fail(CheckWebhookRefused, "install", "200 with the webhook object", a.describe())
		return nil, true
	case err != nil:
		r.fail(CheckWebhookInstall, "", `200 {"id": "...", "events": [...]}`, err.Error())
		return nil, false
	default:
		ps := hookProblems(hook)
		r.verdict(CheckWebhookInstall, "", ps)
		if len(ps) > 0 {
			return nil, false
		}
	}
	return hook, false
}

// hookProblems checks an installed webhook's object: a non-empty id, and
// events (when present) an array of strings.
func hookProblems(hook map[string]any) []problem {
	var ps []problem
	if id, _ := hook["id"].(string); id == "" {
		ps = append(ps, problem{"id: a non-empty string", describeValue(hook["id"], hook["id"] != nil)})
	}
	if ev, ok := hook["events"]; ok {
		arr, isArr := ev.([]any)
		for _, e := range arr {
			if _, isString := e.(string); !isString {
				isArr = false
			}
		}
		if !isArr {
			ps = append(ps, problem{"events: an array of strings", describeValue(ev, true)})
		}
	}
	return ps
}

// checkWebhookDelete deletes the webhook just installed (nil: none was).
func (r *runner) checkWebhookDelete(ctx context.Context, hook map[string]any, refused bool) {
	if hook == nil {
		r.skip(CheckWebhookDelete, "", "no webhook installed")
		if !refused {
			r.skip(CheckWebhookRefused, "", "no webhook installed")
		}
		return
	}
	a := r.send(ctx, http.MethodDelete, protocol.PathWebhooks, r.webhookBody(map[string]any{"webhook": hook}))
	switch {
	case !a.ok():
		r.skip(CheckWebhookDelete, "", "no answer (see transport.answers)")
		r.skip(CheckWebhookRefused, "", "no answer to delete")
	case a.status == http.StatusOK || a.status == http.StatusNoContent:
		r.pass(CheckWebhookDelete, "")
		r.pass(CheckWebhookRefused, "")
	case a.status >= 400:
		r.pass(CheckWebhookDelete, "")
		r.fail(CheckWebhookRefused, "delete", "200 or 204: the webhook just installed is deleted", a.describe())
	default:
		r.fail(CheckWebhookDelete, "", "200 or 204, or an error status", a.describe())
		r.skip(CheckWebhookRefused, "", "delete answered neither success nor an error")
	}
}

// checkWebhookVerify sends an unsigned event to verify: an id or an error
// status.
func (r *runner) checkWebhookVerify(ctx context.Context, event map[string]any) {
	a := r.post(ctx, protocol.PathWebhookVerify, event)
	var verified map[string]any
	switch err := decodeObject(a, &verified); {
	case !a.ok():
		r.skip(CheckWebhookVerify, "", "no answer (see transport.answers)")
	case a.status >= 400:
		r.pass(CheckWebhookVerify, "") // an unsigned event refused: its body is errors.message-body's
	case err != nil:
		r.fail(CheckWebhookVerify, "", `200 {"id": "..."} or an error status`, err.Error())
	default:
		if id, _ := verified["id"].(string); id == "" {
			r.fail(CheckWebhookVerify, "", `200 {"id": "..."} or an error status`, a.describe())
		} else {
			r.pass(CheckWebhookVerify, "")
		}
	}
}

// checkWebhookTransform sends the event to transform: changes by type or
// an error status.
func (r *runner) checkWebhookTransform(ctx context.Context, event map[string]any) {
	a := r.provoke(ctx, protocol.PathWebhookXform, r.webhookBody(event)) // the service transforms only verified events
	var out map[string]any
	switch err := decodeObject(a, &out); {
	case !a.ok():
		r.skip(CheckWebhookTransform, "", "no answer (see transport.answers)")
	case a.status >= 400:
		r.pass(CheckWebhookTransform, "")
	case err != nil || out == nil:
		r.fail(CheckWebhookTransform, "", `200 {"data": {"<type>": [items]}} or an error status`, a.describe())
	default:
		r.verdict(CheckWebhookTransform, "", transformProblems(out))
	}
}

func transformProblems(out map[string]any) []problem {
	var ps []problem
	data, ok := out["data"].(map[string]any)
	if !ok {
		return []problem{{"data: an object of item arrays by type", describeValue(out["data"], out["data"] != nil)}}
	}
	for _, t := range slices.Sorted(maps.Keys(data)) {
		items, isArr := data[t].([]any)
		if !isArr {
			ps = append(ps, problem{"data." + t + ": an array of items", describeValue(data[t], true)})
			continue
		}
		for i, it := range items {
			obj, _ := it.(map[string]any)
			if id, _ := obj["id"].(string); id == "" {
				ps = append(ps, problem{"items with an id", fmt.Sprintf("data.%s[%d]: %s", t, i, describeValue(it, true))})
			}
			if a := obj[protocol.SyncAction]; a != protocol.ActionSet && a != protocol.ActionRemove {
				ps = append(ps, problem{`__syncAction "SET" or "REMOVE"`, fmt.Sprintf("data.%s[%d]: %s", t, i, describeValue(a, a != nil))})
			}
		}
	}
	return ps
}

// checkActions executes an unknown action and each action without its
// arguments; both must be refused (nothing runs).
func (r *runner) checkActions(ctx context.Context) {
	if len(r.desc.Actions) == 0 {
		r.skipAll([]string{CheckActionUnknown, CheckActionArgs}, "the app declares no actions")
		return
	}
	if !r.accountOK {
		// Refused for the account, an execution says nothing of its checks.
		r.skipAll([]string{CheckActionUnknown, CheckActionArgs}, "no valid account (accounts.validate did not pass)")
		return
	}
	a := r.provoke(ctx, protocol.PathActionExecute, map[string]any{"action": map[string]any{"action": unknownID, "args": map[string]any{}}, "account": r.account})
	r.expectError(CheckActionUnknown, "", a)
	ran := false
	for _, act := range r.desc.Actions {
		if len(act.Args) == 0 {
			continue
		}
		ran = true
		a := r.provoke(ctx, protocol.PathActionExecute, map[string]any{"action": map[string]any{"action": act.Action, "args": map[string]any{}}, "account": r.account})
		r.expectError(CheckActionArgs, act.Action, a)
	}
	if !ran {
		r.skip(CheckActionArgs, "", "no action takes arguments")
	}
}
