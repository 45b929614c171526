package syncer

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/appkitgo/appkit/appkit/protocol"
	"github.com/appkitgo/appkit/internal/store"
)

// resolvedIDs are relation targets already found (by a target field other
// than id).
type resolvedIDs []string

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

// writeBatch bounds the rows written to the store in one go (one lookup of
// duplicates, one bulk write per set of fields): the memory of a write
// does not grow with the page.
const writeBatch = 2000

// applyPage writes one decoded page of a type: its rows in batches of at
// most writeBatch, then its removals.
func (e *engine) applyPage(tx *store.Tx, space string, tm *typeMap, run *runState, p *page, tr *TypeReport) error {
	if e.beforeWrite != nil {
		e.beforeWrite()
	}
	tr.Skipped += p.skipped
	tr.Duplicates += p.dups
	tr.Values = mergeValues(tr.Values, p.values)
	for _, msg := range p.problems {
		tr.problem("%s", msg)
	}
	ty := tx.Catalog().Type(tm.Store)
	if ty == nil {
		return fmt.Errorf("type %s is missing from the store", tm.Store)
	}
	w := &pageWriter{e: e, tx: tx, space: space, tm: tm, ty: ty, run: run, tr: tr, cols: p.cols,
		runF:  ty.Field(hiddenFieldName(space, tm.AppType, hiddenRun)),
		appF:  ty.Field(hiddenFieldName(space, tm.AppType, hiddenAppID)),
		hashF: ty.Field(hiddenFieldName(space, tm.AppType, hiddenHash))}
	for lo := 0; lo < len(p.rows); lo += writeBatch {
		if err := w.write(p.rows[lo:min(lo+writeBatch, len(p.rows))]); err != nil {
			return err
		}
	}
	return w.remove(p.removes)
}

// pageWriter writes the rows of one type's page into a transaction.
type pageWriter struct {
	e          *engine
	tx         *store.Tx
	space      string
	tm         *typeMap
	ty         *store.Type
	run        *runState
	tr         *TypeReport
	cols       *columns
	runF, appF *store.Field
	hashF      *store.Field
	// prevHash are the hashes stored with the entities that exist.
	prevHash map[string]string
	// batch maps the batch's app ids to their entities' ids.
	batch map[string]string
}

// write writes a batch of rows: duplicates of the run found, relations
// resolved, select options created, then the entities grouped by the set
// of fields they carry, their links and their rich texts.
func (w *pageWriter) write(rows []*row) error {
	ids, dupOf, existing, err := w.identify(rows)
	if err != nil {
		return err
	}
	if err := w.resolveRelations(rows, ids); err != nil {
		return err
	}
	if err := w.ensureOptions(rows); err != nil {
		return err
	}
	groups := map[string][]int{} // fields carried -> row indexes
	var keys []string
	for i, r := range rows {
		var k strings.Builder
		for c, v := range r.vals {
			if v != absent {
				k.WriteString(w.cols.ids[c])
				k.WriteByte(0)
			}
		}
		if _, ok := groups[k.String()]; !ok {
			keys = append(keys, k.String())
		}
		groups[k.String()] = append(groups[k.String()], i)
	}
	links := map[*store.Field]map[string][]string{}
	docs := map[*store.Field]map[string]string{} // field -> entity id -> markdown
	for _, k := range keys {
		if err := w.writeGroup(rows, ids, groups[k], dupOf, existing, links, docs); err != nil {
			return err
		}
	}
	for f, l := range links {
		if err := w.tx.SetLinks(f, l); err != nil {
			return err
		}
	}
	return w.putDocuments(docs)
}

// identify finds each row's entity by its app id (one indexed lookup for
// the batch, which also reads the run that last delivered it and its
// values' hash). A row with no entity takes the id a relation set aside
// for it, if any, or a fresh time-ordered one. Rows this run already
// delivered are duplicates, counted and reported.
func (w *pageWriter) identify(rows []*row) (ids []string, dupOf, existing map[string]bool, err error) {
	appIDs := make([]string, len(rows))
	for i, r := range rows {
		appIDs[i] = r.appID
	}
	read := []*store.Field{w.runF}
	if w.hashF != nil {
		read = append(read, w.hashF)
	}
	found, reserved, err := w.tx.MatchOrTakeReserved(w.ty, w.appF, appIDs, read...)
	if err != nil {
		return nil, nil, nil, err
	}
	ids = make([]string, len(rows))
	dupOf = map[string]bool{}
	existing = make(map[string]bool, len(found))
	w.prevHash = make(map[string]string, len(found))
	w.batch = make(map[string]string, len(rows))
	for i, r := range rows {
		m, ok := found[r.appID]
		switch {
		case ok:
			ids[i] = m.ID
			existing[m.ID] = true
			if h, ok := m.Values[len(m.Values)-1].(string); ok && w.hashF != nil {
				w.prevHash[m.ID] = h
			}
			if run, _ := m.Values[0].(int64); run == w.run.Seq && !w.run.outside {
				dupOf[m.ID] = true
				w.tr.Duplicates++
				w.tr.problem("item %q sent twice in the run (the last one wins)", r.appID)
			}
		case reserved[r.appID] != "":
			ids[i] = reserved[r.appID]
		default:
			ids[i] = store.NewEntityID()
		}
		w.batch[r.appID] = ids[i]
	}
	return ids, dupOf, existing, nil
}

// targetIDs are the entity ids of the items of app type target with these
// app ids: rows of this batch, entities that exist, or ids set aside until
// their items arrive (a relation may point at an item that comes later).
func (w *pageWriter) targetIDs(target string, appIDs []string) (map[string]string, error) {
	out := make(map[string]string, len(appIDs))
	var missing []string
	for _, a := range appIDs {
		if _, seen := out[a]; seen {
			continue
		}
		if id, ok := w.batch[a]; ok && target == w.tm.AppType {
			out[a] = id
			continue
		}
		out[a] = ""
		missing = append(missing, a)
	}
	if len(missing) == 0 {
		return out, nil
	}
	name := storeTypeName(w.space, target)
	if tt := w.tx.Catalog().Type(name); tt != nil {
		if appF := tt.Field(hiddenFieldName(w.space, target, hiddenAppID)); appF != nil {
			found, err := w.tx.MatchByValue(tt, appF, missing)
			if err != nil {
				return nil, err
			}
			rest := missing[:0]
			for _, a := range missing {
				if m, ok := found[a]; ok {
					out[a] = m.ID
				} else {
					rest = append(rest, a)
				}
			}
			missing = rest
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	reserved, err := w.tx.ReserveIDs(name, missing)
	if err != nil {
		return nil, err
	}
	for _, a := range missing {
		out[a] = reserved[a]
		w.e.noteRef(reserved[a], a)
	}
	return out, nil
}

// resolveRelations turns relation values into target entity ids: by id,
// the target's entity or the id set aside for it (targetIDs); on another
// target field, looked up, or left pending until the target arrives.
func (w *pageWriter) resolveRelations(rows []*row, ids []string) error {
	for c, fm := range w.cols.maps {
		if fm.Kind != kRefOne && fm.Kind != kRefMany {
			continue
		}
		keyed := fm.TargetField != "" && fm.TargetField != "id"
		var values []string
		for _, r := range rows {
			values = append(values, refValues(r.vals[c])...)
		}
		if !keyed {
			if err := w.resolveByID(rows, c, fm, values); err != nil {
				return err
			}
			continue
		}
		found, err := resolveKeyed(w.tx, w.space, fm, values)
		if err != nil {
			return err
		}
		for i, r := range rows {
			if v := r.vals[c]; v == nil || v == absent {
				continue
			}
			_, many := r.vals[c].([]string)
			var targets []string
			for _, x := range refValues(r.vals[c]) {
				if id, ok := found[x]; ok {
					targets = append(targets, id)
					continue
				}
				if len(w.run.Pending) < maxPending {
					w.run.Pending = append(w.run.Pending, pendingRef{Type: w.tm.AppType, Field: fm.AppID, Entity: ids[i], AppID: r.appID, Value: x})
				} else {
					w.tr.problem("item %q: %s: no %s with %s %q (yet); too many pending relations to wait for it", r.appID, fm.AppID, fm.Target, fm.TargetField, x)
				}
			}
			switch {
			case many:
				r.vals[c] = resolvedIDs(targets)
			case len(targets) > 0:
				r.vals[c] = resolvedIDs(targets[:1])
			default:
				r.vals[c] = nil
			}
		}
	}
	return nil
}

// resolveByID replaces column c's app ids (relations on the target's id)
// with the targets' entity ids.
func (w *pageWriter) resolveByID(rows []*row, c int, fm *fieldMap, values []string) error {
	if len(values) == 0 {
		return nil
	}
	targets, err := w.targetIDs(fm.Target, values)
	if err != nil {
		return err
	}
	for _, r := range rows {
		switch v := r.vals[c].(type) {
		case string:
			r.vals[c] = resolvedIDs{targets[v]}
		case []string:
			out := make(resolvedIDs, len(v))
			for k, a := range v {
				out[k] = targets[a]
			}
			r.vals[c] = out
		}
	}
	return nil
}

// refValues are the app ids (or target field values) of a relation value.
func refValues(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case string:
		return []string{x}
	}
	return nil
}

// ensureOptions creates the options the rows' select values name.
func (w *pageWriter) ensureOptions(rows []*row) error {
	options := map[string]map[string]string{}
	for c, fm := range w.cols.maps {
		if fm.Kind != kSelect {
			continue
		}
		for _, r := range rows {
			opt, ok := r.vals[c].(string)
			if !ok {
				continue
			}
			if options[fm.Enum] == nil {
				options[fm.Enum] = map[string]string{}
			}
			options[fm.Enum][optionID(fm.Enum, opt)] = opt
		}
	}
	enums := slices.Sorted(maps.Keys(options))
	for _, en := range enums {
		if err := w.tx.EnsureEnumOptions(w.tx.Catalog().Type(en), options[en]); err != nil {
			return err
		}
	}
	return nil
}

// writeGroup bulk-writes rows that carry the same fields; collections and
// rich texts are gathered into links and docs.
func (w *pageWriter) writeGroup(rows []*row, ids []string, group []int, dupOf, existing map[string]bool, links map[*store.Field]map[string][]string, docs map[*store.Field]map[string]string) error {
	var fields []*store.Field
	var colIdx []int
	for c, fm := range w.cols.maps {
		if rows[group[0]].vals[c] == absent {
			continue
		}
		sf := w.ty.Field(fm.Store)
		if sf == nil {
			return fmt.Errorf("field %s is missing from the store", fm.Store)
		}
		switch fm.Kind {
		case kRefMany:
			if links[sf] == nil {
				links[sf] = map[string][]string{}
			}
			for _, i := range group {
				links[sf][ids[i]] = w.targets(rows[i].vals[c])
			}
			continue
		case kMarkdown, kHTML:
			if docs[sf] == nil {
				docs[sf] = map[string]string{}
			}
			for _, i := range group {
				md, _ := rows[i].vals[c].(string)
				docs[sf][ids[i]] = md
			}
			continue
		}
		fields = append(fields, sf)
		colIdx = append(colIdx, c)
	}
	fields = append(fields, w.appF, w.runF)
	if w.hashF != nil {
		fields = append(fields, w.hashF)
	}
	brows := make([]store.BulkRow, len(group))
	for j, i := range group {
		vals := make([]any, 0, len(fields))
		for _, c := range colIdx {
			vals = append(vals, w.column(w.cols.maps[c], rows[i].vals[c]))
		}
		vals = append(vals, rows[i].appID, w.run.Seq)
		if w.hashF != nil {
			vals = append(vals, rows[i].hash)
		}
		brows[j] = store.BulkRow{ID: ids[i], Values: vals}
	}
	created, err := w.tx.BulkWrite(w.ty, fields, brows, existing)
	if err != nil {
		return err
	}
	for j, c := range created {
		id := ids[group[j]]
		switch {
		case dupOf[id]:
		case c:
			w.tr.Created++
		case w.hashF != nil && w.prevHash[id] == rows[group[j]].hash:
			w.tr.Unchanged++
		default:
			w.tr.Updated++
		}
	}
	return nil
}

// rowHasher hashes rows' values as the app sent them (the fields a row
// carries, relations by the app's ids, rich texts and collections
// included): an item written again with the same values is counted
// unchanged.
type rowHasher struct{ buf []byte }

// of is the hash of a row's values by column.
func (h *rowHasher) of(cols *columns, vals []any) string {
	h.buf = h.buf[:0]
	for c, v := range vals {
		if v != absent {
			h.buf = appendHashed(appendHashedString(h.buf, cols.ids[c]), v)
		}
	}
	sum := sha256.Sum256(h.buf)
	return base64.RawStdEncoding.EncodeToString(sum[:16])
}

// appendHashed appends a converted value to what a row's hash is taken
// of, so that different values never append the same bytes: a kind byte,
// then the value (a string or a list with its length first).
func appendHashed(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, 'n')
	case string:
		return appendHashedString(b, x)
	case int64:
		return strconv.AppendInt(append(b, 'i'), x, 10)
	case bool:
		if x {
			return append(b, 't')
		}
		return append(b, 'f')
	case []string:
		b = append(strconv.AppendInt(append(b, 'l'), int64(len(x)), 10), ':')
		for _, e := range x {
			b = appendHashed(b, e)
		}
		return b
	case [2]any:
		return appendHashed(appendHashed(append(b, 'r'), x[0]), x[1])
	}
	// Not a kind convert makes; still distinct from all of the above.
	s := fmt.Sprintf("%T:%#v", v, v)
	b = strconv.AppendInt(append(b, '?'), int64(len(s)), 10)
	return append(append(b, ':'), s...)
}

// appendHashedString appends a string as appendHashed does.
func appendHashedString(b []byte, s string) []byte {
	b = strconv.AppendInt(append(b, 's'), int64(len(s)), 10)
	return append(append(b, ':'), s...)
}

// targets are the entity ids a collection's value links to.
func (w *pageWriter) targets(v any) []string {
	ids, _ := v.(resolvedIDs)
	return ids
}

// column is the store's column value of a converted value.
func (w *pageWriter) column(fm *fieldMap, v any) any {
	if v == nil {
		return nil
	}
	switch fm.Kind {
	case kRefOne:
		if ids, ok := v.(resolvedIDs); ok && len(ids) > 0 {
			return ids[0]
		}
		return nil
	case kSelect:
		return optionID(fm.Enum, v.(string))
	}
	return v
}

// putDocuments stores the rich texts of the entities' document fields.
func (w *pageWriter) putDocuments(docs map[*store.Field]map[string]string) error {
	for f, byEntity := range docs {
		ids := make([]string, 0, len(byEntity))
		for id := range byEntity {
			ids = append(ids, id)
		}
		secrets, err := w.tx.DocumentSecrets(w.ty, f, ids)
		if err != nil {
			return err
		}
		contents := make(map[string]string, len(secrets))
		for id, sec := range secrets {
			contents[sec] = byEntity[id]
		}
		if err := w.tx.PutDocuments(contents); err != nil {
			return err
		}
	}
	return nil
}

// remove deletes the entities of the page's REMOVE items.
func (w *pageWriter) remove(appIDs []string) error {
	if len(appIDs) == 0 {
		return nil
	}
	found, err := w.tx.MatchByValue(w.ty, w.appF, appIDs)
	if err != nil {
		return err
	}
	for _, aid := range appIDs {
		m, ok := found[aid]
		if !ok {
			continue
		}
		err := w.tx.Delete(w.ty.Name, map[string]any{"platform/id": m.ID})
		if errors.Is(err, store.ErrEntityNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		w.tr.Removed++
	}
	return nil
}

// finish ends a run whose every type was loaded or failed. A type that
// completed: entities of a full type not delivered since its attempt began
// are removed, and the run becomes its last one (its next
// lastSynchronizedAt). A type that delivered items and stored none is
// failed instead, and removes nothing. A failed type's attempt is carried
// to the next run. References to entities that never arrived are cleared
// and reported, except those to a failed type (its items may still come).
func (e *engine) finish(ctx context.Context, key string, s *state, space string, types []string) error {
	run := s.Run
	if resumable(run, types) {
		// Every type failed where it can resume: the run stays in
		// progress, and the next Run resumes it, operation and all.
		run.Failed = nil
		if err := e.save(ctx, key, s, nil); err != nil {
			return fmt.Errorf("save the run: %w", err)
		}
		return nil
	}
	err := e.save(ctx, key, s, func(tx *store.Tx) error {
		cat := tx.Catalog()
		for _, t := range types {
			tr := run.Counts[t]
			if run.Failed[t] == "" && tr.Items > 0 && tr.Skipped == tr.Items {
				e.failType(run, tr, t, &typeError{restart: true,
					err: fmt.Errorf("the app delivered %d items of type %s and none could be stored (see the problems)", tr.Items, t)})
			}
			if run.Failed[t] != "" {
				s.carry(run, t, tr)
				continue
			}
			tr.Status = TypeCompleted
			if s.TypeLast == nil {
				s.TypeLast = map[string]*lastRun{}
			}
			s.TypeLast[t] = &lastRun{Started: run.attempt(t).Started, Types: run.Types, Filter: run.Filter}
			if tr.Mode != protocol.SyncFull {
				continue
			}
			ty := cat.Type(s.Mapping[t].Store)
			stale, err := tx.IDsWhereBelow(ty, ty.Field(hiddenFieldName(space, t, hiddenRun)), run.attempt(t).Since)
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
			if run.Failed[t] != "" {
				continue
			}
			tr := run.Counts[t]
			tm := s.Mapping[t]
			ty := tx.Catalog().Type(tm.Store)
			appF := ty.Field(hiddenFieldName(space, t, hiddenAppID))
			ids := slices.Sorted(maps.Keys(tm.Fields))
			for _, fid := range ids {
				fm := tm.Fields[fid]
				if fm.Kind != kRefOne && fm.Kind != kRefMany || run.Failed[fm.Target] != "" {
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
		if len(run.Failed) == 0 {
			s.LastSuccess, s.LastTypes, s.LastFilter = run.Started, run.Types, run.Filter
		}
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
				if errors.Is(err, store.ErrEntityNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				continue
			}
			_, err := tx.Update(ty.Name, map[string]any{"platform/id": p.Entity, f.Name: map[string]any{"platform/id": target}})
			if errors.Is(err, store.ErrEntityNotFound) {
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
