package syncer_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/examples/tracker/tracker"
	"github.com/appkitgo/appkit/internal/store"
	"github.com/appkitgo/appkit/internal/syncer"
)

// Synchronize the tracker example app, served on a loopback port, into an
// in-memory store, and print what the run did per type.
func ExampleRun() {
	ctx := context.Background()
	nop := zerolog.Nop()
	now := func() time.Time { return tracker.Epoch.Add(100 * 24 * time.Hour) }
	h, err := tracker.New(tracker.Config{Projects: 3, Tasks: 40, Now: now, Logger: &nop}).Handler()
	if err != nil {
		panic(err)
	}
	app := httptest.NewServer(h)
	defer app.Close()

	st, err := store.Open(ctx, "sqlite::memory:")
	if err != nil {
		panic(err)
	}
	defer st.Close()
	rep, err := syncer.Run(ctx, st, syncer.Options{AppURL: app.URL, Account: map[string]string{"token": tracker.DemoToken}, Now: now})
	if err != nil {
		panic(err)
	}
	fmt.Println(rep.App, "→", rep.Space)
	for _, t := range rep.Types {
		fmt.Printf("%s (%s): %s, %d created, %d skipped\n", t.Type, t.Store, t.Mode, t.Created, t.Skipped)
	}
	// Output:
	// Tracker → tracker
	// project (tracker/project): full, 3 created, 0 skipped
	// task (tracker/task): full, 40 created, 0 skipped
}
