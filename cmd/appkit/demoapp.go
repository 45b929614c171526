package main

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/upstream"
)

// The app of "appkit host --demo": a few projects and their tasks, built
// here with the appkit SDK (the CLI depends on no example package). It
// reads them through appkit/upstream from the demo's own small API
// (demoAPI, served beside the app), as a real app reads its service's API,
// so that a run's exchanges show the calls the app made (the console's run
// page). Its data are fixed, so that the demo prints the same at every
// start.

// demoAccountToken is the demo app's account token. It is long enough
// not to occur in the demo's other texts: the host masks an account's
// secrets wherever they appear in the exchanges it keeps, and a token
// "demo" masked the app's id and paths. legacyDemoAccountToken, the token
// of demo accounts made before, is still accepted.
const (
	demoAccountToken       = "demo-account-token"
	legacyDemoAccountToken = "demo"
)

// demoTokenValid reports whether token is a demo account's token.
func demoTokenValid(token string) bool {
	return subtle.ConstantTimeCompare([]byte(token), []byte(demoAccountToken)) == 1 ||
		subtle.ConstantTimeCompare([]byte(token), []byte(legacyDemoAccountToken)) == 1
}

// demoProject is a project of the demo app; the struct declares its schema.
type demoProject struct {
	ID   string `appkit:"id"`
	Name string `appkit:"name"`
}

// demoTask is a task of the demo app: it belongs to a project through a
// many-to-one relation.
type demoTask struct {
	ID       string     `appkit:"id"`
	Name     string     `appkit:"name"`
	Status   string     `appkit:"status,single-select,options=todo|doing|done"`
	Due      appkit.Day `appkit:"due,omitempty"`
	Estimate float64    `appkit:"estimate,format=Number,precision=1,unit=h"`
	Project  string     `appkit:"project,ref=project,inverse=Tasks"`
}

var (
	demoProjects = []string{"Website", "Mobile app", "Billing"}
	demoTasks    = []string{"Write the brief", "Draft the design", "Review the copy", "Ship it"}
	demoStatuses = []string{"todo", "doing", "done"}
)

// demoAPIPath is where the demo's API is served, beside the app.
const demoAPIPath = "/upstream"

// demoData returns the demo's projects and tasks.
func demoData() ([]demoProject, []demoTask) {
	projects := make([]demoProject, len(demoProjects))
	var tasks []demoTask
	due := time.Date(2026, time.January, 5, 0, 0, 0, 0, time.UTC)
	for i, name := range demoProjects {
		projects[i] = demoProject{ID: fmt.Sprintf("p%d", i+1), Name: name}
		for j, name := range demoTasks {
			n := len(tasks)
			tasks = append(tasks, demoTask{
				ID: fmt.Sprintf("t%d", n+1), Name: name, Status: demoStatuses[(i+j)%len(demoStatuses)],
				Due: appkit.DayOf(due.AddDate(0, 0, 7*n)), Estimate: float64(1 + n%5), Project: fmt.Sprintf("p%d", i+1),
			})
		}
	}
	return projects, tasks
}

// demoAPI serves the projects and tasks the demo app reads: GET
// /projects and GET /tasks, with the demo's token as a bearer token.
func demoAPI() http.Handler {
	projects, tasks := demoData()
	serve := func(v any) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); !ok || !demoTokenValid(token) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnauthorized)
				_, _ = w.Write([]byte(`{"message":"invalid token"}`))
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(v)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("GET /projects", serve(projects))
	mux.Handle("GET /tasks", serve(tasks))
	return mux
}

// newDemoApp returns the demo app, reading its API at apiURL.
func newDemoApp(log *zerolog.Logger, apiURL string) *appkit.App {
	validate := func(_ context.Context, token string) (string, error) {
		if !demoTokenValid(token) {
			return "", appkit.InvalidAccount("invalid token")
		}
		return "Demo", nil
	}
	api := &upstream.Client{BaseURL: apiURL, Auth: upstream.Bearer("token"), Logger: log}
	return &appkit.App{
		ID:          "demo",
		Name:        "Demo",
		Version:     "1.0.0",
		Description: "Projects and tasks of appkit host --demo",
		Website:     "https://github.com/appkitgo/appkit#readme",
		Auth:        []appkit.Auth{appkit.TokenAuth("API token", `The demo's token is "`+demoAccountToken+`"`, validate)},
		Sync: &appkit.Sync{Types: []appkit.Type{
			{ID: "project", Name: "Projects", Default: true, Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]demoProject, error) {
				return upstream.Get[[]demoProject](ctx, api.For(req.Account), "/projects", nil)
			})},
			{ID: "task", Name: "Tasks", Default: true, Data: appkit.All(func(ctx context.Context, req *appkit.DataRequest) ([]demoTask, error) {
				return upstream.Get[[]demoTask](ctx, api.For(req.Account), "/tasks", nil)
			})},
		}},
		Logger: log,
	}
}
