package apps

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
)

// Webhooks installs a sync's webhook at the app after a run, deletes it
// with the sync, and receives, records and applies its events.
type Webhooks struct {
	*core
	reg  *Registry
	hist *history
}

// EventURL is the address where the webhook of a sync receives events.
func (s *Webhooks) EventURL(syncID string) string {
	b := s.BaseURL()
	if b == "" {
		return ""
	}
	return b + "/api/apps/events/" + syncID
}

// ensureWebhook installs the webhook after a successful run when the app
// supports webhooks and none is installed for these types; it says what
// it did ("" when nothing).
func (s *Webhooks) ensureWebhook(ctx context.Context, sy *Sync, a *App, account map[string]any, rep *syncer.Report) string {
	cfg, err := s.reg.appConfig(ctx, a, account)
	if err != nil {
		return "not installed: config: " + newMasker(account, a.Descriptor).mask(err.Error())
	}
	if cfg.Webhooks == nil || !cfg.Webhooks.Enabled {
		return ""
	}
	types := sy.Types
	if rep != nil && len(rep.Types) > 0 {
		types = nil
		for _, t := range rep.Types {
			types = append(types, t.Type)
		}
	}
	if len(sy.Webhook) > 0 && sameStrings(types, sy.WebhookTypes) {
		return ""
	}
	u := s.EventURL(sy.ID)
	if u == "" {
		return "not installed: the host does not know its own address (BaseURL)"
	}
	var stored any
	if len(sy.Webhook) > 0 {
		stored = sy.Webhook
	}
	var obj map[string]any
	err = s.call(ctx, nil, a.URL, http.MethodPost, protocol.PathWebhooks, map[string]any{
		"types": types, "filter": webhookFilter(rep, sy, s.now()), "account": account, "url": u, "webhook": stored}, &obj)
	if err != nil {
		return "not installed: " + newMasker(account, a.Descriptor).mask(err.Error())
	}
	id, _ := obj["id"].(string)
	if id == "" {
		return "not installed: the app's answer has no webhook id"
	}
	b, err := json.Marshal(obj)
	if err != nil || len(b) > 64<<10 {
		return "not installed: the webhook object is not storable"
	}
	if err := s.on(s.db).setSyncWebhook(ctx, sy.ID, string(b), types); err != nil {
		return "installed but not stored: " + err.Error()
	}
	if len(sy.Webhook) > 0 {
		return "re-registered for the changed types"
	}
	return "installed"
}

// deleteWebhook deletes the sync's webhook at the app.
func (s *Webhooks) deleteWebhook(ctx context.Context, sy *Sync) error {
	a, _, account, err := s.reg.syncApp(ctx, sy)
	if err != nil {
		return err
	}
	err = s.call(ctx, nil, a.URL, http.MethodDelete, protocol.PathWebhooks, map[string]any{
		"types": sy.WebhookTypes, "filter": evaluatedFilter(sy, s.now()), "account": account, "webhook": sy.Webhook}, nil)
	if err != nil {
		return errors.New(newMasker(account, a.Descriptor).mask(err.Error()))
	}
	return nil
}

// EventOutcome is the answer to an incoming event.
type EventOutcome struct {
	// Status is the HTTP status to answer; Message says why.
	Status  int
	Message string
	// Replay reports an event already received (nothing changes).
	Replay bool
}

// maxParams bounds the headers passed as an event's params.
const maxParams = 100

// ReceiveEvent takes an event posted to a sync's webhook URL: the app
// verifies it (its answer must name the sync's webhook), it is recorded
// once (a replay changes nothing) and applied by the sync's next holder.
func (s *Webhooks) ReceiveEvent(ctx context.Context, syncID string, header http.Header, body []byte) EventOutcome {
	sy, err := s.readSync(ctx, syncID)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return EventOutcome{Status: http.StatusNotFound, Message: "no such webhook"}
		}
		return EventOutcome{Status: http.StatusInternalServerError, Message: "internal error"}
	}
	var wh struct {
		ID string `json:"id"`
	}
	if len(sy.Webhook) == 0 || json.Unmarshal(sy.Webhook, &wh) != nil || wh.ID == "" {
		return EventOutcome{Status: http.StatusNotFound, Message: "no webhook is installed for this sync"}
	}
	a, err := s.reg.App(ctx, sy.AppID)
	if err != nil {
		return EventOutcome{Status: http.StatusInternalServerError, Message: "internal error"}
	}
	params := map[string]any{}
	for k, v := range header {
		lk := strings.ToLower(k)
		if lk == "cookie" || len(params) >= maxParams || len(v) == 0 {
			continue
		}
		params[lk] = v[0]
	}
	// The app verifies the bytes received, exactly: a signature covers
	// them, whitespace and escapes included.
	verify, err := withPayload(map[string]any{"params": params}, body)
	if err != nil {
		return EventOutcome{Status: http.StatusBadRequest, Message: "the event cannot be passed on"}
	}
	payload := body
	if !json.Valid(body) {
		payload, _ = json.Marshal(string(body))
	}
	var ver struct {
		ID any `json:"id"`
	}
	err = s.call(ctx, nil, a.URL, http.MethodPost, protocol.PathWebhookVerify, verify, &ver)
	var ae *AppError
	if errors.As(err, &ae) && ae.Status >= 400 && ae.Status < 500 {
		return EventOutcome{Status: http.StatusUnauthorized, Message: "the app did not verify the event: " + ae.Message}
	}
	if err != nil {
		return EventOutcome{Status: http.StatusServiceUnavailable, Message: "the app could not verify the event now; send it again later"}
	}
	if fmt.Sprint(ver.ID) != wh.ID {
		return EventOutcome{Status: http.StatusUnauthorized, Message: "the event belongs to another webhook"}
	}
	id := s.seal.eventID(syncID, wh.ID, body)
	// An event received before ids were keyed has its id in the plain
	// form: received again, it is a replay too.
	before, err := s.on(s.db).eventReceived(ctx, legacyEventID(syncID, wh.ID, body), syncID)
	if err != nil {
		s.log.Error().Err(err).Str("sync", syncID).Msg("apps: looking for an event received before")
		return EventOutcome{Status: http.StatusInternalServerError, Message: "internal error"}
	}
	if before {
		return EventOutcome{Status: http.StatusOK, Message: "the event was already received", Replay: true}
	}
	// Sealed like account secrets: an event may carry personal data or
	// the external system's tokens.
	inserted, err := s.on(s.db).insertEvent(ctx, id, syncID, s.now(),
		s.seal.seal([]byte(mustJSON(params)), eventAD(id, "params")), s.seal.seal(payload, eventAD(id, "payload")))
	if err != nil {
		s.log.Error().Err(err).Str("sync", syncID).Msg("apps: recording an event")
		return EventOutcome{Status: http.StatusInternalServerError, Message: "internal error"}
	}
	if !inserted {
		return EventOutcome{Status: http.StatusOK, Message: "the event was already received", Replay: true}
	}
	s.Wake()
	return EventOutcome{Status: http.StatusAccepted, Message: "accepted"}
}

// applyEvents transforms and applies a leased sync's pending events, in
// the order received; each is marked applied in the transaction that
// applies it. A batch is recorded as one webhook run.
func (s *Webhooks) applyEvents(ctx context.Context, sy *Sync) error {
	evs, err := s.on(s.db).pendingEvents(ctx, sy.ID, s.now(), eventBatch)
	if err != nil || len(evs) == 0 {
		return err
	}
	// Opened here; an event that cannot be opened (another key) is refused.
	opened := evs[:0]
	var unopened int
	for _, e := range evs {
		if e.sealed != 0 {
			params, perr := s.seal.open(e.params, eventAD(e.id, "params"))
			payload, err := s.seal.open(e.payload, eventAD(e.id, "payload"))
			if err = errors.Join(perr, err); err != nil {
				unopened++
				if err := s.on(s.db).refuseEvent(ctx, e.id, errSealed.Error()); err != nil {
					return err
				}
				continue
			}
			e.params, e.payload = string(params), string(payload)
		}
		opened = append(opened, e)
	}
	if unopened > 0 {
		s.log.Warn().Int("events", unopened).Str("sync", sy.ID).Msg("apps: webhook events that cannot be decrypted were refused")
	}
	if evs = opened; len(evs) == 0 {
		return nil
	}
	a, _, account, err := s.reg.syncApp(ctx, sy)
	if err != nil {
		return err
	}
	m := newMasker(account, a.Descriptor)
	rec, hc := newRecorder(s.cfg.HTTPClient, m, s.cfg.UpstreamBodies)
	var runID string
	if err := s.tx(ctx, func(tx *sql.Tx) error {
		var err error
		runID, err = s.hist.insertRun(ctx, tx, sy.ID, TriggerWebhook, StatusRunning, s.now())
		return err
	}); err != nil {
		return err
	}
	report := &RunReport{}
	byType := map[string]*syncer.TypeReport{}
	status, msg := StatusSucceeded, ""
	for _, e := range evs {
		var out struct {
			Data map[string][]any `json:"data"`
		}
		req, err := withPayload(map[string]any{
			"params": rawJSON(e.params), "types": sy.WebhookTypes, "filter": evaluatedFilter(sy, s.now()), "account": account}, []byte(e.payload))
		if err == nil {
			err = s.call(ctx, hc, a.URL, http.MethodPost, protocol.PathWebhookXform, req, &out)
		}
		var ae *AppError
		if errors.As(err, &ae) && ae.Status >= 400 && ae.Status < 500 {
			report.Refused++
			report.Warnings = append(report.Warnings, "an event was refused by transform: "+m.mask(ae.Message))
			if err := s.on(s.db).refuseEvent(ctx, e.id, m.mask(ae.Message)); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			status, msg = StatusPaused, m.mask(err.Error())
			break
		}
		eventID := e.id
		rep, err := syncer.ApplyChanges(ctx, s.st, sy.spaceOf(a), out.Data, func(tx *store.Tx) error {
			return markEventApplied(tx, eventID)
		})
		if err != nil {
			status, msg = StatusPaused, m.mask(err.Error())
			break
		}
		report.Events++
		report.Warnings = append(report.Warnings, rep.Warnings...)
		for _, tr := range rep.Types {
			agg := byType[tr.Type]
			if agg == nil {
				agg = &syncer.TypeReport{Type: tr.Type, Store: tr.Store, Mode: tr.Mode}
				byType[tr.Type] = agg
				report.Types = append(report.Types, agg)
			}
			addTypeReport(agg, tr)
		}
	}
	now := s.now()
	if status == StatusPaused {
		// The events stay pending, tried again (in order) after PauseDelay.
		status = StatusFailed
		if err := s.on(s.db).delayPendingEvents(ctx, sy.ID, now.Add(s.cfg.PauseDelay)); err != nil {
			return err
		}
	}
	ex, dropped := rec.exchanges()
	report.DroppedExchanges = dropped
	s.runEnded(ctx, runID, status, report)
	return s.tx(ctx, func(tx *sql.Tx) error {
		if err := s.on(tx).endWebhookRun(ctx, runID, status, now, report, msg, ex); err != nil {
			return err
		}
		return s.hist.prune(ctx, tx, sy.ID)
	})
}

// addTypeReport adds what one event did to a type (tr) to the webhook run's
// report of the type (agg): the counts, the problems (the first 50), the
// values converted or left empty per field and outcome (counts summed, the
// first detail and example kept), and the status (failed when one event
// failed it, with the first reason).
func addTypeReport(agg, tr *syncer.TypeReport) {
	agg.Pages++
	agg.Items += tr.Items
	agg.Created += tr.Created
	agg.Updated += tr.Updated
	agg.Unchanged += tr.Unchanged
	agg.Removed += tr.Removed
	agg.Skipped += tr.Skipped
	agg.Duplicates += tr.Duplicates
	if len(agg.Problems) < 50 {
		agg.Problems = append(agg.Problems, tr.Problems...)
	}
	switch {
	case tr.Status == syncer.TypeFailed && agg.Status != syncer.TypeFailed:
		agg.Status, agg.Error = tr.Status, tr.Error
	case agg.Status == "":
		agg.Status = tr.Status
	}
	for _, v := range tr.Values {
		i := slices.IndexFunc(agg.Values, func(a *syncer.ValueReport) bool { return a.Field == v.Field && a.Outcome == v.Outcome })
		if i < 0 {
			c := *v
			agg.Values = append(agg.Values, &c)
			continue
		}
		agg.Values[i].Count += v.Count
	}
}

// eventAD is the additional data that binds a sealed part of an event
// (params, payload) to the event.
func eventAD(id, part string) string { return "event:" + id + ":" + part }
