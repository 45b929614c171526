package appkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/appkitgo/appkit/appkit"
	"github.com/appkitgo/appkit/appkit/protocol"
)

// benchTask is a 10-field struct item, tagged for appkit and for
// encoding/json alike so that both encode the same page.
type benchTask struct {
	ID       string     `appkit:"id" json:"id"`
	Name     string     `appkit:"name" json:"name"`
	Status   string     `appkit:"status,single-select" json:"status"`
	Points   int        `appkit:"points" json:"points"`
	Estimate float64    `appkit:"estimate" json:"estimate"`
	Due      appkit.Day `appkit:"due" json:"due"`
	URL      string     `appkit:"url,url" json:"url"`
	Email    string     `appkit:"email,email" json:"email"`
	Project  string     `appkit:"project,ref=project" json:"project"`
	Done     string     `appkit:"done" json:"done"`
}

// benchTasks builds n struct items, fresh for every call as a handler would.
func benchTasks(n int) []benchTask {
	items := make([]benchTask, n)
	for i := range items {
		done := "false"
		if i%2 == 0 {
			done = "true"
		}
		items[i] = benchTask{
			ID: fmt.Sprint(i), Name: "Task number " + fmt.Sprint(i), Status: "open", Points: i % 13,
			Estimate: float64(i) / 7, Due: appkit.Day{Year: 2024, Month: 6, Day: 13}, URL: "https://tracker.example.com/t/" + fmt.Sprint(i),
			Email: "dev@example.com", Project: "p1", Done: done,
		}
	}
	return items
}

// benchItems builds the same page as map items.
func benchItems(n int) []appkit.Item {
	items := make([]appkit.Item, n)
	for i := range items {
		done := "false"
		if i%2 == 0 {
			done = "true"
		}
		items[i] = appkit.Item{
			"id": fmt.Sprint(i), "name": "Task number " + fmt.Sprint(i), "status": "open", "points": i % 13,
			"estimate": float64(i) / 7, "due": "2024-06-13", "url": "https://tracker.example.com/t/" + fmt.Sprint(i),
			"email": "dev@example.com", "project": "p1", "done": done,
		}
	}
	return items
}

func benchFields() []appkit.Field {
	return []appkit.Field{
		appkit.ID(), appkit.Text("name", "Name"), appkit.Text("status", "Status").As(appkit.SubSingleSelect),
		appkit.Integer("points", "Points"), appkit.Number("estimate", "Estimate"), appkit.DayField("due", "Due"),
		appkit.Text("url", "URL").As(appkit.SubURL), appkit.Text("email", "Email").As(appkit.SubEmail),
		appkit.Ref("project", "Project", "project"), appkit.Text("done", "Done"),
	}
}

type benchCursor struct{ Next int }

// benchApp serves a task type of n items per page (struct or map items)
// and a project type for the relation.
func benchApp(n int, structs bool) *appkit.App {
	logger := zerolog.New(io.Discard).With().Timestamp().Logger()
	task := appkit.Type{ID: "task", Name: "Tasks"}
	if structs {
		task.Data = appkit.Pages(func(ctx context.Context, r *appkit.DataRequest, c *benchCursor) (*appkit.Page[benchTask, benchCursor], error) {
			return &appkit.Page[benchTask, benchCursor]{Items: benchTasks(n), Next: &benchCursor{Next: n}}, nil
		})
	} else {
		task.Fields = benchFields()
		task.Data = appkit.Pages(func(ctx context.Context, r *appkit.DataRequest, c *benchCursor) (*appkit.Page[appkit.Item, benchCursor], error) {
			return &appkit.Page[appkit.Item, benchCursor]{Items: benchItems(n), Next: &benchCursor{Next: n}}, nil
		})
	}
	project := appkit.Type{ID: "project", Name: "Projects", Fields: []appkit.Field{appkit.ID(), appkit.Text("name", "Name")},
		Data: noItems[appkit.Item]()}
	return &appkit.App{ID: "bench", Name: "bench", Version: "1", Auth: []appkit.Auth{appkit.NoAuth()}, Logger: &logger,
		Sync: &appkit.Sync{Types: []appkit.Type{task, project}}}
}

// BenchmarkDataPage serves one data page of struct items through appkit
// (logging one JSON line per request to io.Discard) and through a bare
// net/http handler that decodes the same request and encodes the same items
// with encoding/json, and reports appkit's time as a ratio of the bare
// handler's (target: ratio ≤ 1.25 at 1000 items). The 10-item page shows the
// fixed cost per request (routing, validation, logging).
func BenchmarkDataPage(b *testing.B) {
	for _, n := range []int{1000, 10} {
		b.Run(fmt.Sprintf("items=%d", n), func(b *testing.B) { benchDataPage(b, n) })
	}
}

func benchDataPage(b *testing.B, pageSize int) {
	sdk, err := benchApp(pageSize, true).Handler()
	if err != nil {
		b.Fatal(err)
	}
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in protocol.DataRequest
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		next, _ := json.Marshal(benchCursor{Next: pageSize})
		items := benchTasks(pageSize)
		page := struct {
			Items               []benchTask          `json:"items"`
			Pagination          *protocol.Pagination `json:"pagination"`
			SynchronizationType string               `json:"synchronizationType"`
		}{items, &protocol.Pagination{HasNext: true, NextPageConfig: next}, "full"}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(page)
	})
	body := `{"requestedType":"task","types":["task"],"filter":{},"account":{"token":"x"},"pagination":{"Next":0},"lastSynchronizedAt":null}`
	serve := func(h http.Handler) time.Duration {
		req := httptest.NewRequest("POST", protocol.PathData, strings.NewReader(body))
		rec := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(rec, req)
		d := time.Since(start)
		if rec.Code != 200 {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		return d
	}
	serve(sdk)
	serve(bare)
	b.ResetTimer()
	var tSDK, tBare time.Duration
	for i := 0; i < b.N; i++ {
		// Alternate so that both see the same machine conditions.
		tSDK += serve(sdk)
		tBare += serve(bare)
	}
	b.ReportMetric(float64(tSDK.Nanoseconds())/float64(b.N), "appkit-ns/page")
	b.ReportMetric(float64(tBare.Nanoseconds())/float64(b.N), "bare-ns/page")
	b.ReportMetric(float64(tSDK)/float64(tBare), "ratio")
}
