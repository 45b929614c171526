package main

import (
	"context"
	"crypto/subtle"
	"fmt"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
)

// The app of "appkit host --demo": a few projects and their tasks, built
// here with the appkit SDK (the CLI depends on no example package). Its
// data are fixed, so that the demo prints the same at every start.

// demoAccountToken is the demo app's one valid account token.
const demoAccountToken = "demo"

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

// newDemoApp returns the demo app.
func newDemoApp(log *zerolog.Logger) *appkit.App {
	validate := func(_ context.Context, token string) (string, error) {
		if subtle.ConstantTimeCompare([]byte(token), []byte(demoAccountToken)) != 1 {
			return "", appkit.InvalidAccount("invalid token")
		}
		return "Demo", nil
	}
	return &appkit.App{
		ID:          "demo",
		Name:        "Demo",
		Version:     "1.0.0",
		Description: "Projects and tasks of appkit host --demo",
		Website:     "https://github.com/appkitgo/appkit#readme",
		Auth:        []appkit.Auth{appkit.TokenAuth("API token", `The demo's token is "demo"`, validate)},
		Sync: &appkit.Sync{Types: []appkit.Type{
			{ID: "project", Name: "Projects", Default: true, Data: appkit.All(func(context.Context, *appkit.DataRequest) ([]demoProject, error) {
				out := make([]demoProject, len(demoProjects))
				for i, name := range demoProjects {
					out[i] = demoProject{ID: fmt.Sprintf("p%d", i+1), Name: name}
				}
				return out, nil
			})},
			{ID: "task", Name: "Tasks", Default: true, Data: appkit.All(func(context.Context, *appkit.DataRequest) ([]demoTask, error) {
				var out []demoTask
				due := time.Date(2026, time.January, 5, 0, 0, 0, 0, time.UTC)
				for i := range demoProjects {
					for j, name := range demoTasks {
						n := len(out)
						out = append(out, demoTask{
							ID: fmt.Sprintf("t%d", n+1), Name: name, Status: demoStatuses[(i+j)%len(demoStatuses)],
							Due: appkit.DayOf(due.AddDate(0, 0, 7*n)), Estimate: float64(1 + n%5), Project: fmt.Sprintf("p%d", i+1),
						})
					}
				}
				return out, nil
			})},
		}},
		Logger: log,
	}
}
