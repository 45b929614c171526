package appkit

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// encTask is a 10-field struct item, tagged for appkit and for
// encoding/json alike so that both encode the same item.
type encTask struct {
	ID       string    `appkit:"id" json:"id"`
	Name     string    `appkit:"name" json:"name"`
	Status   string    `appkit:"status,single-select" json:"status"`
	Points   int       `appkit:"points" json:"points"`
	Estimate float64   `appkit:"estimate" json:"estimate"`
	Due      Day       `appkit:"due" json:"due"`
	Updated  time.Time `appkit:"updated" json:"updated"`
	URL      string    `appkit:"url,url" json:"url"`
	Project  string    `appkit:"project,ref=project" json:"project"`
	Tags     []string  `appkit:"tags,multi-select" json:"tags"`
}

func encTasks(n int) []encTask {
	items := make([]encTask, n)
	at := time.Date(2024, 6, 13, 9, 30, 0, 0, time.UTC)
	for i := range items {
		items[i] = encTask{
			ID: fmt.Sprint(i), Name: "Task <b>number</b> " + fmt.Sprint(i), Status: "open", Points: i % 13,
			Estimate: float64(i) / 7, Due: Day{2024, 6, 13}, Updated: at.Add(time.Duration(i) * time.Minute),
			URL: "https://tracker.example.com/t/" + fmt.Sprint(i), Project: "p1", Tags: []string{"api", "ui"},
		}
	}
	return items
}

// encMaps is the same page as map items, with the values in the form
// encoding/json writes the struct's (so both encoders see equal work).
func encMaps(items []encTask) []Item {
	out := make([]Item, len(items))
	for i, t := range items {
		out[i] = Item{"id": t.ID, "name": t.Name, "status": t.Status, "points": t.Points, "estimate": t.Estimate,
			"due": t.Due, "updated": t.Updated, "url": t.URL, "project": t.Project, "tags": t.Tags}
	}
	return out
}

// encApp declares the task type twice: from the struct and as a map schema.
func encApp() *App {
	st, _ := schemaOf(reflect.TypeFor[encTask](), "Tasks")
	return &App{ID: "enc", Name: "enc", Version: "1", Auth: []Auth{NoAuth()}, Sync: &Sync{Types: []Type{
		{ID: "task", Name: "Tasks", Data: Pages(func(context.Context, *DataRequest, *NoCursor) (*Page[encTask, NoCursor], error) { return nil, nil })},
		{ID: "taskmap", Name: "Task maps", Fields: st.schemaFields(), Data: All(func(context.Context, *DataRequest) ([]Item, error) { return nil, nil })},
		{ID: "project", Name: "Projects", Fields: []Field{ID(), Text("name", "Name")}, Data: All(func(context.Context, *DataRequest) ([]Item, error) { return nil, nil })},
	}}}
}

// BenchmarkEncodePage encodes a 500-item page with appkit's schema
// encoders and the same items with encoding/json, alternating in one run,
// and reports how many times faster appkit is ("speedup"; targets: at least
// 3 for struct items, at least 2 for map items) and appkit's allocations per
// page ("appkit-allocs/page").
func BenchmarkEncodePage(b *testing.B) {
	const n = 500
	bt, err := encApp().build()
	if err != nil {
		b.Fatal(err)
	}
	tasks := encTasks(n)
	maps := encMaps(tasks)
	buf := make([]byte, 0, 256<<10)
	kinds := []struct {
		name     string
		appkit   func() []byte
		baseline func() []byte
	}{
		{"items=struct",
			func() []byte { return encodeItems(buf[:0], tasks, bt.types["task"], false, &pageProblems{}) },
			func() []byte { out, _ := json.Marshal(tasks); return out }},
		{"items=map",
			func() []byte { return encodeItems(buf[:0], maps, bt.types["taskmap"], false, &pageProblems{}) },
			func() []byte { out, _ := json.Marshal(maps); return out }},
	}
	for _, k := range kinds {
		b.Run(k.name, func(b *testing.B) {
			allocs := testing.AllocsPerRun(20, func() { k.appkit() })
			var tKit, tStd time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				k.appkit()
				mid := time.Now()
				k.baseline()
				tKit += mid.Sub(start)
				tStd += time.Since(mid)
			}
			b.ReportMetric(float64(tKit.Nanoseconds())/float64(b.N), "appkit-ns/page")
			b.ReportMetric(float64(tStd.Nanoseconds())/float64(b.N), "encoding/json-ns/page")
			b.ReportMetric(float64(tStd)/float64(tKit), "speedup")
			b.ReportMetric(allocs, "appkit-allocs/page")
		})
	}
}
