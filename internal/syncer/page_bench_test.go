package syncer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// benchMapping is the sync benchmark's row type: ten fields and a relation.
var benchMapping = &typeMap{AppType: "row", Store: "b/row", Fields: map[string]*fieldMap{
	"name": {AppID: "name", Kind: kText}, "email": {AppID: "email", Kind: kEmail},
	"score": {AppID: "score", Kind: kInt}, "amount": {AppID: "amount", Kind: kDecimal},
	"day": {AppID: "day", Kind: kDate}, "at": {AppID: "at", Kind: kDateTime},
	"done": {AppID: "done", Kind: kBool}, "note": {AppID: "note", Kind: kText},
	"url": {AppID: "url", Kind: kText}, "group": {AppID: "group", Kind: kRefOne, Target: "group", TargetField: "id"},
}}

// benchPage is a data answer of n items in the wire form appkit writes.
func benchPage(n int) []byte {
	var b bytes.Buffer
	epoch := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	b.WriteString(`{"items":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"r%d","name":"Row number %d","email":"user%d@example.com","score":%d,"amount":%d.%02d,"day":"%s","at":"%s","done":"%t","note":"A short note about row %d","url":"https://example.com/rows/%d","group":"g%d"}`,
			i, i, i%5000, i%1000, i%1000, i%100, epoch.AddDate(0, 0, i%700).Format(time.DateOnly),
			epoch.Add(time.Duration(i)*time.Minute).Format("2006-01-02T15:04:05.000Z07:00"), i%3 == 0, i, i, i%100)
	}
	b.WriteString(`],"pagination":{"hasNext":true,"nextPageConfig":{"next":1000}},"synchronizationType":"full"}`)
	return b.Bytes()
}

// BenchmarkDecodePage reads a page of 1,000 items into converted rows (what
// a sync does) and, alternating with it in the same loop, decodes the same
// answer with encoding/json into maps (the baseline, which converts
// nothing). It reports both times per page and their ratio: the decoder's
// cost against the standard library's.
func BenchmarkDecodePage(b *testing.B) {
	data := benchPage(1000)
	cols := newColumns(benchMapping)
	var stream, baseline time.Duration
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		p, err := pageDecoder{space: "b", tm: benchMapping, cols: cols, page: 1}.decode(bytes.NewReader(data))
		if err != nil || len(p.rows) != 1000 {
			b.Fatalf("%v, %d rows", err, len(p.rows))
		}
		stream += time.Since(start)
		start = time.Now()
		var ans struct {
			Items []map[string]any `json:"items"`
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&ans); err != nil || len(ans.Items) != 1000 {
			b.Fatalf("%v, %d items", err, len(ans.Items))
		}
		baseline += time.Since(start)
	}
	b.ReportMetric(float64(stream.Nanoseconds())/float64(b.N), "stream-ns/page")
	b.ReportMetric(float64(baseline.Nanoseconds())/float64(b.N), "encoding-json-ns/page")
	b.ReportMetric(float64(stream)/float64(baseline), "ratio")
}
