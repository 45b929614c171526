package console

import (
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/syncer"
)

// syncView is the sync screen's content (and its live runs fragment's).
type syncView struct {
	App  *apps.App
	Sync *apps.Sync
	Runs []*apps.Run
	// Live is true while a run is due, queued or running: the fragment
	// polls.
	Live bool
	// Due is true when a run is due or in progress.
	Due bool
	// Filters are the sync's filter values, sorted by id.
	Filters []filterValue
	// Progress is the engine's progress per type of the runs in progress
	// (in this host process), by run id.
	Progress map[string][]syncer.Event
}

type filterValue struct {
	ID     string
	Values string
}

func (c *Console) loadSync(r *http.Request) (*syncView, error) {
	svc, err := c.service()
	if err != nil {
		return nil, err
	}
	sy, a, err := syncApp(r.Context(), svc, r.PathValue("id"))
	if err != nil {
		return nil, err
	}
	runs, err := svc.SyncService.Runs(r.Context(), sy.ID, 20)
	if err != nil {
		return nil, err
	}
	d := &syncView{App: a, Sync: sy, Runs: runs, Progress: map[string][]syncer.Event{}}
	// Due (a new sync's first run, say) but not started yet: the page
	// polls until the scheduler starts it.
	d.Due = sy.RunID != "" || (sy.NextAt != nil && !sy.NextAt.After(time.Now()))
	d.Live = d.Due
	for _, run := range runs {
		if run.Status == apps.StatusQueued || run.Status == apps.StatusRunning {
			d.Live = true
			if p := svc.Progress(run.ID); p != nil {
				d.Progress[run.ID] = p
			}
		}
	}
	for k, v := range sy.Filter {
		d.Filters = append(d.Filters, filterValue{ID: k, Values: strings.Join(v, ", ")})
	}
	sort.Slice(d.Filters, func(i, j int) bool { return d.Filters[i].ID < d.Filters[j].ID })
	return d, nil
}

func (c *Console) syncPage(w http.ResponseWriter, r *http.Request) error {
	return c.showSync(w, r, http.StatusOK, layout{})
}

func (c *Console) showSync(w http.ResponseWriter, r *http.Request, status int, l layout) error {
	d, err := c.loadSync(r)
	if err != nil {
		return err
	}
	l.Title, l.Nav = "Sync of "+d.App.Name, "apps"
	return syncScreen.show(c, w, r, status, l, d)
}

// setSchedule changes a sync's schedule ("" for runs on demand only).
func (c *Console) setSchedule(w http.ResponseWriter, r *http.Request) error {
	svc, err := c.service()
	if err != nil {
		return err
	}
	f, err := parseScheduleForm(r.PostForm)
	if fe, ok := formProblems(err); ok {
		return c.showSync(w, r, http.StatusBadRequest, layout{Form: r.PostForm, FieldErrors: fe})
	}
	if _, err := svc.SyncService.UpdateSync(r.Context(), r.PathValue("id"), apps.SyncSpec{Every: &f.Every}); err != nil {
		return onForm(r.Context(), err, func(status int, msg string) error {
			return c.showSync(w, r, status, layout{Form: r.PostForm, FieldErrors: map[string]string{"every": msg}})
		})
	}
	return redirect(w, r, "/syncs/"+r.PathValue("id"))
}

// runsFragment is the runs table alone, polled while a run is in progress.
func (c *Console) runsFragment(w http.ResponseWriter, r *http.Request) error {
	d, err := c.loadSync(r)
	if err != nil {
		return err
	}
	return runsFragment.show(c, w, r, http.StatusOK, layout{}, d)
}

// runNow runs a sync now: in full (a refresh) when the form says full=1
// (the "Full sync" button).
func (c *Console) runNow(w http.ResponseWriter, r *http.Request) error {
	svc, err := c.service()
	if err != nil {
		return err
	}
	if _, err := svc.SyncService.RunWith(r.Context(), r.PathValue("id"), apps.RunSpec{Full: parseRunForm(r.PostForm).Full}); err != nil {
		return err
	}
	return redirect(w, r, "/syncs/"+r.PathValue("id"))
}

func (c *Console) deleteSync(w http.ResponseWriter, r *http.Request) error {
	svc, sy, err := byPath(c, r, syncOf)
	if err != nil {
		return err
	}
	warns, err := svc.SyncService.DeleteSync(r.Context(), sy.ID)
	if err != nil {
		return err
	}
	r.SetPathValue("id", sy.AppID)
	return c.showApp(w, r, http.StatusOK, layout{Notice: removedNotice("sync", warns)})
}
