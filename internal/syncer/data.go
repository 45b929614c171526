package syncer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/store"
)

// dataPage is the answer of the data endpoint, read leniently: no
// pagination means one last page, no synchronizationType means full.
type dataPage struct {
	Items      []any `json:"items"`
	Pagination *struct {
		HasNext        bool            `json:"hasNext"`
		NextPageConfig json.RawMessage `json:"nextPageConfig"`
	} `json:"pagination"`
	SynchronizationType string `json:"synchronizationType"`
}

// fetched is a page or the error that stopped it.
type fetched struct {
	page *dataPage
	err  error
}

// syncType loads one type page by page. The next page is fetched while the
// current one is written.
func (e *engine) syncType(ctx context.Context, key string, s *state, space, t string, account map[string]any, filter map[string]json.RawMessage, schema map[string]map[string]protocol.SchemaField) error {
	run := s.Run
	tr := run.Counts[t]
	tm := s.Mapping[t]
	if filter == nil {
		filter = map[string]json.RawMessage{}
	}
	sel := map[string]map[string]protocol.SchemaField{}
	for _, ty := range run.Types {
		sel[ty] = schema[ty]
	}
	fetch := func(pagination json.RawMessage) <-chan fetched {
		ch := make(chan fetched, 1)
		go func() {
			var pag any
			if len(pagination) > 0 {
				pag = pagination
			}
			req := map[string]any{"requestedType": t, "types": run.Types, "filter": filter, "account": account,
				"pagination": pag, "lastSynchronizedAt": run.LastSync, "operationId": run.OperationID, "schema": sel}
			var p dataPage
			err := e.c.callRetry(ctx, http.MethodPost, protocol.PathData, req, &p)
			ch <- fetched{&p, err}
		}()
		return ch
	}
	start := time.Now()
	cur := run.Page[t]
	next := fetch(cur)
	guard := newPageGuard(e, t, cur)
	// Pages are committed in batches (with the position after the last
	// one): fewer commits write far fewer pages to disk, and a stopped run
	// redoes at most one batch. A batch is opened only once its first page
	// has arrived and waits for later pages only until CommitEvery, so a
	// slow app never holds the store's write lock.
	for {
		f := <-next
		var stop error
		done := false
		err := e.save(ctx, key, s, func(tx *store.Tx) error {
			deadline := time.Now().Add(e.opts.CommitEvery)
			batch := 0
			for {
				if f.err != nil {
					var ae *AppError
					if errors.As(f.err, &ae) && ae.Retryable() {
						stop = fmt.Errorf("%w: type %s, page %d: %w; run again to resume from this page", ErrPaused, t, tr.Pages+1, f.err)
					} else {
						stop = fmt.Errorf("data of type %s, page %d: %w", t, tr.Pages+1, f.err)
					}
					return nil // commit the pages before it
				}
				p := f.page
				hasNext := p.Pagination != nil && p.Pagination.HasNext
				var nextCfg json.RawMessage
				if hasNext {
					nextCfg = p.Pagination.NextPageConfig
					if len(bytes.TrimSpace(nextCfg)) == 0 || string(nextCfg) == "null" {
						nextCfg = json.RawMessage("{}")
					}
					if err, drop := guard.next(tr.Pages+1, len(p.Items), nextCfg); err != nil {
						stop = err
						if drop {
							s.Run = nil // nothing removed; the next run starts afresh
						}
						return nil
					}
					next = fetch(nextCfg)
				}
				mode := protocol.SyncFull
				if strings.EqualFold(p.SynchronizationType, protocol.SyncDelta) {
					mode = protocol.SyncDelta
				}
				if tr.Mode == "" || mode == protocol.SyncDelta {
					tr.Mode = mode
				}
				if err := e.applyPage(tx, space, tm, run, mode, p.Items, tr); err != nil {
					return fmt.Errorf("store page %d of type %s: %w", tr.Pages+1, t, err)
				}
				tr.Pages++
				tr.Items += len(p.Items)
				batch += len(p.Items) + 1
				if e.opts.Progress != nil {
					e.opts.Progress(Event{Type: t, Pages: tr.Pages, Items: tr.Items, Done: !hasNext, Elapsed: time.Since(start)})
				}
				if !hasNext {
					delete(run.Page, t)
					run.Done[t] = true
					done = true
					return nil
				}
				run.Page[t] = nextCfg
				cur = nextCfg
				wait := time.Until(deadline)
				if batch >= e.opts.CommitItems || wait <= 0 {
					return nil
				}
				timer := time.NewTimer(wait)
				select {
				case f = <-next:
					timer.Stop()
				case <-timer.C:
					return nil // the next page starts the next batch
				case <-ctx.Done():
					timer.Stop()
					return ctx.Err()
				}
			}
		})
		switch {
		case err != nil:
			return err
		case stop != nil:
			return stop
		case done:
			return nil
		}
	}
}

// resolvedIDs are relation targets already found (by a target field other
// than id).
type resolvedIDs []string

// row is one converted SET item.
type row struct {
	appID  string
	id     string
	fields []string // app field ids present, sorted
	values map[string]any
}

// pendingRef is a relation matched on a target field other than id whose
// target had not arrived when its holder was written.
type pendingRef struct {
	Type   string `json:"type"`
	Field  string `json:"field"`
	Entity string `json:"entity"`
	AppID  string `json:"app_id"`
	Value  string `json:"value"`
}

// maxPending bounds the pending relations of a run (kept in its state);
// beyond it relations to targets that have not arrived are reported.
const maxPending = 10000

// maxRefNames bounds the remembered app ids of relation targets (for
// reporting targets that never arrive by their app id).
const maxRefNames = 100000

// noteRef remembers the app id behind a target's entity id.
func (e *engine) noteRef(id, appID string) {
	if e.refNames == nil {
		e.refNames = map[string]string{}
	}
	if len(e.refNames) < maxRefNames {
		e.refNames[id] = appID
	}
}

// resolveKeyed finds the targets of relation values matched on a target
// field other than id: value -> target entity id for those that exist.
func resolveKeyed(tx *store.Tx, space string, fm *fieldMap, values []string) (map[string]string, error) {
	tt := tx.Catalog().Type(storeTypeName(space, fm.Target))
	if tt == nil {
		return nil, nil
	}
	tf := tt.Field(storeFieldName(space, fm.Target, fm.TargetField))
	if tf == nil || tf.Role != store.RolePrimitive {
		return nil, nil
	}
	return tx.IDsByValue(tt, tf, values)
}

// applyPage writes one page of items of a type.
func (e *engine) applyPage(tx *store.Tx, space string, tm *typeMap, run *runState, mode string, items []any, tr *TypeReport) error {
	seq := run.Seq
	cat := tx.Catalog()
	ty := cat.Type(tm.Store)
	if ty == nil {
		return fmt.Errorf("type %s is missing from the store", tm.Store)
	}
	fieldIDs := make([]string, 0, len(tm.Fields))
	for id := range tm.Fields {
		fieldIDs = append(fieldIDs, id)
	}
	sort.Strings(fieldIDs)
	byID := map[string]int{} // entity id -> index in rows
	var rows []*row
	var removes []string
	removed := map[string]bool{}
	for n, it := range items {
		obj, ok := it.(map[string]any)
		if !ok {
			tr.Skipped++
			tr.problem("item %d of page %d: not an object (%s)", n+1, tr.Pages+1, describe(it))
			continue
		}
		aid, ok := appID(obj["id"])
		if !ok {
			tr.Skipped++
			tr.problem("item %d of page %d: no id", n+1, tr.Pages+1)
			continue
		}
		id := entityID(space, tm.AppType, aid)
		action := protocol.ActionSet
		if a, ok := obj[protocol.SyncAction].(string); ok && a != "" {
			action = strings.ToUpper(a)
		}
		switch action {
		case protocol.ActionRemove:
			// Items of a page apply in order: a REMOVE cancels an earlier
			// SET of the same id, a later SET cancels the REMOVE.
			if i, ok := byID[id]; ok {
				rows[i] = nil
				delete(byID, id)
			}
			if !removed[id] {
				removed[id] = true
				removes = append(removes, id)
			}
			continue
		case protocol.ActionSet:
		default:
			tr.Skipped++
			tr.problem("item %q: unknown %s %q", aid, protocol.SyncAction, action)
			continue
		}
		r := &row{appID: aid, id: id, values: map[string]any{}}
		var bad error
		for _, fid := range fieldIDs {
			v, present := obj[fid]
			if !present && mode == protocol.SyncDelta {
				continue // a partial SET leaves the other fields alone
			}
			cv, err := convert(tm.Fields[fid].Kind, fid, v)
			if err != nil {
				bad = err
				break
			}
			r.fields = append(r.fields, fid)
			r.values[fid] = cv
		}
		if bad != nil {
			tr.Skipped++
			tr.problem("item %q skipped: %v", aid, bad)
			continue
		}
		delete(removed, id)
		if i, dup := byID[id]; dup {
			tr.Duplicates++
			tr.problem("item %q sent twice in the run (the last one wins)", aid)
			rows[i] = r
			continue
		}
		byID[id] = len(rows)
		rows = append(rows, r)
	}
	kept := rows[:0]
	for _, r := range rows {
		if r != nil {
			kept = append(kept, r)
		}
	}
	rows = kept
	kept2 := removes[:0]
	for _, id := range removes {
		if removed[id] {
			kept2 = append(kept2, id)
		}
	}
	removes = kept2
	runF := ty.Field(hiddenFieldName(space, tm.AppType, hiddenRun))
	appF := ty.Field(hiddenFieldName(space, tm.AppType, hiddenAppID))
	if len(rows) > 0 {
		ids := make([]string, len(rows))
		for i, r := range rows {
			ids[i] = r.id
		}
		// Ids already delivered earlier in this run: duplicates.
		runs, err := tx.IntValues(ty, runF, ids)
		if err != nil {
			return err
		}
		dupOf := map[string]bool{}
		existing := make(map[string]bool, len(runs))
		for id := range runs {
			existing[id] = true
		}
		for _, r := range rows {
			if runs[r.id] == seq && !run.outside {
				dupOf[r.id] = true
				tr.Duplicates++
				tr.problem("item %q sent twice in the run (the last one wins)", r.appID)
			}
		}
		// Relations: by id, the target's derived id; on another target
		// field, looked up (or left pending until the target arrives).
		for _, fid := range fieldIDs {
			fm := tm.Fields[fid]
			if fm.Kind != kRefOne && fm.Kind != kRefMany {
				continue
			}
			keyed := fm.TargetField != "" && fm.TargetField != "id"
			var values []string
			for _, r := range rows {
				v, ok := r.values[fid]
				if !ok || v == nil {
					continue
				}
				list, one := v.([]string)
				if !one {
					list = []string{v.(string)}
				}
				values = append(values, list...)
			}
			if !keyed {
				for _, v := range values {
					e.noteRef(entityID(space, fm.Target, v), v)
				}
				continue
			}
			found, err := resolveKeyed(tx, space, fm, values)
			if err != nil {
				return err
			}
			for _, r := range rows {
				v, ok := r.values[fid]
				if !ok || v == nil {
					continue
				}
				list, many := v.([]string)
				if !many {
					list = []string{v.(string)}
				}
				var ids []string
				for _, x := range list {
					if id, ok := found[x]; ok {
						ids = append(ids, id)
						continue
					}
					if len(run.Pending) < maxPending {
						run.Pending = append(run.Pending, pendingRef{Type: tm.AppType, Field: fid, Entity: r.id, AppID: r.appID, Value: x})
					} else {
						tr.problem("item %q: %s: no %s with %s %q (yet); too many pending relations to wait for it", r.appID, fid, fm.Target, fm.TargetField, x)
					}
				}
				if many {
					r.values[fid] = resolvedIDs(ids)
				} else if len(ids) > 0 {
					r.values[fid] = resolvedIDs(ids[:1])
				} else {
					r.values[fid] = nil
				}
			}
		}
		// Select options first, then the entities, grouped by the set of
		// fields they carry.
		options := map[string]map[string]string{}
		groups := map[string][]*row{}
		var keys []string
		for _, r := range rows {
			for _, fid := range r.fields {
				fm := tm.Fields[fid]
				if fm.Kind == kSelect && r.values[fid] != nil {
					opt := r.values[fid].(string)
					if options[fm.Enum] == nil {
						options[fm.Enum] = map[string]string{}
					}
					options[fm.Enum][optionID(fm.Enum, opt)] = opt
				}
			}
			k := strings.Join(r.fields, "\x00")
			if _, ok := groups[k]; !ok {
				keys = append(keys, k)
			}
			groups[k] = append(groups[k], r)
		}
		enums := make([]string, 0, len(options))
		for en := range options {
			enums = append(enums, en)
		}
		sort.Strings(enums)
		for _, en := range enums {
			if err := tx.EnsureEnumOptions(cat.Type(en), options[en]); err != nil {
				return err
			}
		}
		links := map[*store.Field]map[string][]string{}
		docs := map[*store.Field]map[string]string{} // field -> entity id -> markdown
		for _, k := range keys {
			group := groups[k]
			var cols []*store.Field
			var colIDs []string
			for _, fid := range group[0].fields {
				fm := tm.Fields[fid]
				sf := ty.Field(fm.Store)
				if sf == nil {
					return fmt.Errorf("field %s is missing from the store", fm.Store)
				}
				switch fm.Kind {
				case kRefMany:
					if links[sf] == nil {
						links[sf] = map[string][]string{}
					}
					for _, r := range group {
						var targets []string
						switch v := r.values[fid].(type) {
						case resolvedIDs:
							targets = v
						case []string:
							for _, x := range v {
								targets = append(targets, entityID(space, fm.Target, x))
							}
						}
						links[sf][r.id] = targets
					}
					continue
				case kMarkdown, kHTML:
					if docs[sf] == nil {
						docs[sf] = map[string]string{}
					}
					for _, r := range group {
						md, _ := r.values[fid].(string)
						docs[sf][r.id] = md
					}
					continue
				}
				cols = append(cols, sf)
				colIDs = append(colIDs, fid)
			}
			cols = append(cols, appF, runF)
			brows := make([]store.BulkRow, len(group))
			for i, r := range group {
				vals := make([]any, 0, len(cols))
				for _, fid := range colIDs {
					v := r.values[fid]
					fm := tm.Fields[fid]
					if v != nil {
						switch fm.Kind {
						case kRefOne:
							if ids, ok := v.(resolvedIDs); ok {
								v = ids[0]
							} else {
								v = entityID(space, fm.Target, v.(string))
							}
						case kSelect:
							v = optionID(fm.Enum, v.(string))
						}
					}
					vals = append(vals, v)
				}
				vals = append(vals, r.appID, seq)
				brows[i] = store.BulkRow{ID: r.id, Values: vals}
			}
			created, err := tx.BulkWrite(ty, cols, brows, existing)
			if err != nil {
				return err
			}
			for i, c := range created {
				switch {
				case dupOf[group[i].id]:
				case c:
					tr.Created++
				default:
					tr.Updated++
				}
			}
		}
		for f, l := range links {
			if err := tx.SetLinks(f, l); err != nil {
				return err
			}
		}
		for f, byEntity := range docs {
			ids := make([]string, 0, len(byEntity))
			for id := range byEntity {
				ids = append(ids, id)
			}
			secrets, err := tx.DocumentSecrets(ty, f, ids)
			if err != nil {
				return err
			}
			contents := make(map[string]string, len(secrets))
			for id, sec := range secrets {
				contents[sec] = byEntity[id]
			}
			if err := tx.PutDocuments(contents); err != nil {
				return err
			}
		}
	}
	for _, id := range removes {
		err := tx.Delete(ty.Name, map[string]any{"platform/id": id})
		if se, ok := store.AsError(err); ok && se.Name == store.ErrEntityNotFound {
			continue
		}
		if err != nil {
			return err
		}
		tr.Removed++
	}
	return nil
}

// finish ends a run whose every type was loaded: entities of full types not
// delivered are removed, references to entities that never arrived are
// cleared and reported, and the run becomes the last successful one.
func (e *engine) finish(ctx context.Context, key string, s *state, space string, types []string) error {
	run := s.Run
	err := e.save(ctx, key, s, func(tx *store.Tx) error {
		cat := tx.Catalog()
		for _, t := range types {
			tr := run.Counts[t]
			tm := s.Mapping[t]
			ty := cat.Type(tm.Store)
			if tr.Mode != protocol.SyncFull {
				continue
			}
			stale, err := tx.IDsWhereNot(ty, ty.Field(hiddenFieldName(space, t, hiddenRun)), run.Seq)
			if err != nil {
				return err
			}
			for _, id := range stale {
				if err := tx.Delete(ty.Name, map[string]any{"platform/id": id}); err != nil {
					return err
				}
				tr.Removed++
			}
		}
		if err := e.resolvePending(tx, space, s); err != nil {
			return err
		}
		for _, t := range types {
			tr := run.Counts[t]
			tm := s.Mapping[t]
			ty := tx.Catalog().Type(tm.Store)
			appF := ty.Field(hiddenFieldName(space, t, hiddenAppID))
			ids := make([]string, 0, len(tm.Fields))
			for id := range tm.Fields {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			for _, fid := range ids {
				fm := tm.Fields[fid]
				if fm.Kind != kRefOne && fm.Kind != kRefMany {
					continue
				}
				dangling, err := tx.ClearDanglingRefs(ty.Field(fm.Store), maxProblems)
				if err != nil {
					return err
				}
				holders := make([]string, len(dangling))
				for i, d := range dangling {
					holders[i] = d.ID
				}
				names, err := tx.TextValues(ty, appF, holders)
				if err != nil {
					return err
				}
				for _, d := range dangling {
					target := e.refNames[d.Target]
					if target == "" {
						target = "(entity " + d.Target + ")"
					}
					tr.problem("item %q: %s: the app never sent %s %q (relation left empty)", names[d.ID], fid, fm.Target, target)
				}
			}
		}
		s.LastSuccess, s.LastTypes, s.LastFilter = run.Started, run.Types, run.Filter
		s.Run = nil
		return nil
	})
	if err != nil {
		return fmt.Errorf("finish the run: %w", err)
	}
	return nil
}

// resolvePending links the relations on another target field whose targets
// arrived after their holders; the others are reported.
func (e *engine) resolvePending(tx *store.Tx, space string, s *state) error {
	run := s.Run
	type key struct{ typ, field string }
	groups := map[key][]pendingRef{}
	var keys []key
	for _, p := range run.Pending {
		k := key{p.Type, p.Field}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], p)
	}
	for _, k := range keys {
		tm := s.Mapping[k.typ]
		fm := tm.Fields[k.field]
		tr := run.Counts[k.typ]
		ty := tx.Catalog().Type(tm.Store)
		if tm == nil || fm == nil || ty == nil || tr == nil {
			continue
		}
		values := make([]string, 0, len(groups[k]))
		for _, p := range groups[k] {
			values = append(values, p.Value)
		}
		found, err := resolveKeyed(tx, space, fm, values)
		if err != nil {
			return err
		}
		f := ty.Field(fm.Store)
		for _, p := range groups[k] {
			target, ok := found[p.Value]
			if !ok {
				tr.problem("item %q: %s: the app never sent %s with %s %q (relation left empty)", p.AppID, p.Field, fm.Target, fm.TargetField, p.Value)
				continue
			}
			if fm.Kind == kRefMany {
				err := tx.CollectionItems(ty.Name, f.Name, p.Entity, []any{target}, true)
				if se, ok := store.AsError(err); ok && se.Name == store.ErrEntityNotFound {
					continue
				}
				if err != nil {
					return err
				}
				continue
			}
			_, err := tx.Update(ty.Name, map[string]any{"platform/id": p.Entity, f.Name: map[string]any{"platform/id": target}})
			if se, ok := store.AsError(err); ok && se.Name == store.ErrEntityNotFound {
				continue // the holder was removed since
			}
			if err != nil {
				return err
			}
		}
	}
	run.Pending = nil
	return nil
}
