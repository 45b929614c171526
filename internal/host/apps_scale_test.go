package host_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	gosync "sync"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/testkit"
	"github.com/appkitgo/appkit/internal/testkit/testapp"
	"github.com/appkitgo/appkit/internal/testkit/teststore"
)

// scaleItem is an item of the scale test's apps.
type scaleItem struct {
	ID   string `appkit:"id"`
	Name string `appkit:"name"`
	Size int    `appkit:"size"`
}

type scaleCursor struct {
	Page int `json:"page"`
}

const (
	scaleApps  = 50
	scalePages = 4
	scaleSize  = 2
)

// scaleApps serves n apps under /aNN, each with one type of scalePages
// pages; hang, when set, is called on every data page of app 0 (to hold it).
type scaleServer struct {
	mu    gosync.Mutex
	calls map[int]map[int]int // app -> page -> data calls
	hang  func(ctx context.Context, page int) error
	srv   *httptest.Server
}

func newScaleServer(t *testing.T) *scaleServer {
	t.Helper()
	s := &scaleServer{calls: map[int]map[int]int{}}
	mux := http.NewServeMux()
	nop := zerolog.Nop()
	for i := range scaleApps {
		app := &appkit.App{ID: fmt.Sprintf("scale%02d", i), Name: fmt.Sprintf("Scale %02d", i), Version: "1.0.0", Description: "a scale test app",
			Auth: []appkit.Auth{appkit.NoAuth()}, Logger: &nop,
			Sync: &appkit.Sync{Types: []appkit.Type{{ID: "item", Name: "Items",
				Data: appkit.Pages(func(ctx context.Context, req *appkit.DataRequest, c *scaleCursor) (*appkit.Page[scaleItem, scaleCursor], error) {
					page := 1
					if c != nil {
						page = c.Page
					}
					s.mu.Lock()
					if s.calls[i] == nil {
						s.calls[i] = map[int]int{}
					}
					s.calls[i][page]++
					hang := s.hang
					s.mu.Unlock()
					if i == 0 && hang != nil {
						if err := hang(ctx, page); err != nil {
							return nil, err
						}
					}
					p := &appkit.Page[scaleItem, scaleCursor]{}
					for k := range scaleSize {
						n := (page-1)*scaleSize + k
						p.Items = append(p.Items, scaleItem{ID: fmt.Sprintf("i%d", n), Name: fmt.Sprintf("item %d", n), Size: n * 10})
					}
					if page < scalePages {
						p.Next = &scaleCursor{Page: page + 1}
					}
					return p, nil
				})}}}}
		prefix := fmt.Sprintf("/a%02d", i)
		mux.Handle(prefix+"/", http.StripPrefix(prefix, testapp.Handler(t, app)))
	}
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *scaleServer) dataCalls() map[int]map[int]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[int]map[int]int{}
	for a, m := range s.calls {
		out[a] = map[int]int{}
		for p, n := range m {
			out[a][p] = n
		}
	}
	return out
}

// The child half of TestAppsScaleOut: one host process's scheduler.
func TestAppsScaleChild(t *testing.T) {
	t.Parallel()
	dsn, id := os.Getenv("APPKIT_APPS_CHILD_DSN"), os.Getenv("APPKIT_APPS_CHILD_ID")
	if dsn == "" {
		t.Skip("run by TestAppsScaleOut")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st := teststore.Open(t, dsn)
	svc, err := apps.New(ctx, apps.Config{Store: st, Key: testKey, HostID: id, Poll: 20 * time.Millisecond,
		LeaseTTL: time.Second, Workers: 4, CommitItems: 1, RequestTimeout: 10 * time.Second, Logger: zerolog.New(os.Stderr)})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(os.Getenv("APPKIT_APPS_CHILD_READY"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	svc.Scheduler.Schedule(ctx)
}

// Two host processes on one PostgreSQL store share 50 scheduled syncs:
// each runs exactly once. The host running app 0 is killed (SIGKILL) in
// the middle of its run; the other takes the run over when the lease
// expires, resumes it from the last committed page, and the store ends as
// after a clean run.
func TestAppsScaleOut(t *testing.T) {
	t.Parallel()
	dsn := testkit.PostgresDSN(t)
	if testing.Short() {
		t.Skip("starts processes")
	}
	ctx := context.Background()
	srv := newScaleServer(t)
	hung := make(chan struct{})
	release := make(chan struct{})
	var once gosync.Once
	srv.hang = func(ctx context.Context, page int) error {
		if page != 3 {
			return nil
		}
		select {
		case <-release:
			return nil
		default:
		}
		once.Do(func() { close(hung) })
		select {
		case <-ctx.Done():
		case <-release:
		}
		return appkit.TryLater(errors.New("held by the test"))
	}

	st := teststore.Open(t, dsn)
	svc, err := apps.New(ctx, apps.Config{Store: st, Key: testKey})
	if err != nil {
		t.Fatal(err)
	}
	// Both hosts are up before the syncs are set up, so that they share
	// them.
	dir := t.TempDir()
	children := map[string]*testkit.Child{}
	for _, id := range []string{"host-a", "host-b"} {
		children[id] = testkit.StartChild(t, id, "TestAppsScaleChild",
			"APPKIT_APPS_CHILD_DSN="+dsn, "APPKIT_APPS_CHILD_ID="+id, "APPKIT_APPS_CHILD_READY="+filepath.Join(dir, id))
	}
	testkit.WaitUntil(t, "both hosts", func() bool {
		_, errA := os.Stat(filepath.Join(dir, "host-a"))
		_, errB := os.Stat(filepath.Join(dir, "host-b"))
		return errA == nil && errB == nil
	})
	every := "1h"
	syncIDs := make([]string, scaleApps)
	// App 0 last: the hosts share the others before its run is held.
	for k := range scaleApps {
		i := (k + 1) % scaleApps
		a, err := svc.Registry.RegisterApp(ctx, fmt.Sprintf("%s/a%02d", srv.srv.URL, i))
		if err != nil {
			t.Fatal(err)
		}
		acc, err := svc.Registry.CreateAccount(ctx, a.ID, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		sy, err := svc.SyncService.CreateSync(ctx, apps.SyncSpec{App: a.ID, Account: acc.ID, Every: &every})
		if err != nil {
			t.Fatal(err)
		}
		syncIDs[i] = sy.ID
	}

	select {
	case <-hung:
	case <-time.After(60 * time.Second):
		t.Fatalf("app 0 never reached page 3: %s", failedRuns(t, st))
	}
	sy0, err := svc.SyncService.Sync(ctx, syncIDs[0])
	if err != nil {
		t.Fatal(err)
	}
	victim := sy0.LeaseOwner
	survivor := map[string]string{"host-a": "host-b", "host-b": "host-a"}[victim]
	if survivor == "" {
		t.Fatalf("app 0's sync is leased by %q", victim)
	}
	children[victim].Kill() // SIGKILL
	close(release)

	db := st.DB()
	defer func() {
		if t.Failed() {
			t.Log(failedRuns(t, st))
		}
	}()
	testkit.WaitUntil(t, "50 succeeded runs", func() bool {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM apps_runs WHERE status = 'succeeded'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n >= scaleApps
	})
	// Exactly one run per sync, each succeeded; app 0's run was taken over
	// and resumed.
	owners := map[string]int{}
	attempts := map[int]int{}
	for i, id := range syncIDs {
		runs, err := svc.SyncService.Runs(ctx, id, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 || runs[0].Status != apps.StatusSucceeded || runs[0].Trigger != apps.TriggerSchedule {
			t.Fatalf("sync %d: runs %+v", i, runs)
		}
		owners[runs[0].Owner]++
		if i == 0 {
			r := runs[0]
			if r.Attempts != 2 || r.Owner != survivor || r.Report == nil || !r.Report.Resumed {
				t.Errorf("app 0's run: attempts %d, owner %s (survivor %s), report %+v", r.Attempts, r.Owner, survivor, r.Report)
			}
		} else if a := runs[0].Attempts; a != 1 && (a != 2 || runs[0].Owner != survivor) {
			// A run the killed host had in progress is finished by the
			// survivor (two attempts, one run).
			t.Errorf("sync %d: %d attempts, last by %s", i, a, runs[0].Owner)
		}
		attempts[i] = runs[0].Attempts
	}
	t.Logf("runs per host: %v (killed %s)", owners, victim)
	if owners[victim] == 0 || owners[survivor] == 0 {
		t.Errorf("the hosts did not share the runs: %v", owners)
	}
	calls := srv.dataCalls()
	for i := 1; i < scaleApps; i++ {
		// A page is fetched once; a run taken over may fetch again the one
		// page the killed host had not committed.
		for p := 1; p <= scalePages; p++ {
			if n := calls[i][p]; n < 1 || n > attempts[i] {
				t.Errorf("app %d: data calls per page %v (%d attempts)", i, calls[i], attempts[i])
			}
		}
	}
	// Page 1 was committed before page 2 was written; page 2 may have been
	// committed before the kill; page 3 was asked for again.
	if c := calls[0]; c[1] != 1 || c[2] < 1 || c[2] > 2 || c[3] != 2 || c[4] != 1 {
		t.Errorf("app 0: data calls per page %v: want page 1 once, page 2 once or twice, page 3 twice, page 4 once", c)
	}
	// The store holds exactly each app's items, app 0's as after a clean run.
	want := scaleRows(t, st, "scale01/item")
	if len(want) != scalePages*scaleSize {
		t.Fatalf("app 1's items: %v", want)
	}
	for i := range scaleApps {
		if got := scaleRows(t, st, fmt.Sprintf("scale%02d/item", i)); !reflect.DeepEqual(got, want) {
			t.Errorf("app %d's items: %v, want %v", i, got, want)
		}
	}
}

// scaleRows reads name and size of every entity of a type.
func scaleRows(t *testing.T, st *store.Store, typ string) map[string]string {
	t.Helper()
	space := strings.Split(typ, "/")[0]
	return readPairs(t, st, typ, space+".item/name", space+".item/size")
}

// readPairs reads two primitive fields of every entity of a type as a map.
func readPairs(t *testing.T, st *store.Store, typ, key, value string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := st.Write(context.Background(), func(tx *store.Tx) error {
		ty := tx.Catalog().Type(typ)
		if ty == nil {
			return fmt.Errorf("no type %s", typ)
		}
		k, v := ty.Field(key), ty.Field(value)
		rows, err := tx.Querier().QueryContext(tx.Context(), "SELECT "+k.Column()+", "+v.Column()+" FROM "+ty.Table)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var a, b sql.NullString
			if err := rows.Scan(&a, &b); err != nil {
				return err
			}
			out[a.String] = b.String
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// failedRuns describes the runs that did not succeed.
func failedRuns(t *testing.T, st *store.Store) string {
	rows, err := st.DB().QueryContext(context.Background(), "SELECT sync_id, status, attempts, error FROM apps_runs WHERE status <> 'succeeded'")
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var id, status, msg string
		var n int
		rows.Scan(&id, &status, &n, &msg)
		fmt.Fprintf(&b, "\n%s %s (%d attempts): %s", id, status, n, msg)
	}
	return b.String()
}
