package console

import (
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/internal/apps"
	"github.com/appkitgo/appkit/internal/syncer"
)

// The run page of a partial run, rendered from a report as the engine
// makes it: the partial badge, each type's status, the failed type's
// reason and one line per field and outcome, every value the app sent
// escaped.
func TestRunPageOutcomes(t *testing.T) {
	t.Parallel()
	now := time.Now()
	run := &apps.Run{ID: "r", Seq: 3, Status: apps.StatusPartial, Trigger: apps.TriggerSchedule, StartedAt: &now, EndedAt: &now,
		Error: `1 of 3 types failed (the others were synchronized; the next run retries these): tag: items is an object, not an array <b>`,
		Report: &apps.RunReport{Types: []*syncer.TypeReport{
			{Type: "note", Status: syncer.TypeCompleted, Mode: "full", Created: 2, Values: []*syncer.ValueReport{
				{Field: "due", Outcome: syncer.ValueCoerced, Count: 1203, Detail: "a month-first locale date-time (M/D/YYYY[, h:mm[:ss] AM/PM]), read as UTC", Example: `"11/14/2023, 10:13 PM"`},
				{Field: "size", Outcome: syncer.ValueDropped, Count: 7, Detail: `want a number, got "<big>"`, Example: `"<big>"`},
			}},
			{Type: "tag", Status: syncer.TypeFailed, Mode: "full", Error: `items is an object, not an array <b>`},
			{Type: "label"},
		}}}
	d := &runView{Run: run, Sync: &apps.Sync{ID: "s"}, App: &apps.App{Name: "Fake"}}
	d.Failed, d.Values = outcomes(run.Report)
	body := renderPage(t, runScreen, layout{Title: "Run 3 of Fake"}, d)
	for _, want := range []string{
		`<span class="status partial">partial</span>`,
		`<th scope="row">note</th><td class="type-status"><span class="status completed">completed</span></td><td class="created">2</td>`,
		`<th scope="row">tag</th><td class="type-status"><span class="status failed">failed</span></td>`,
		`<th scope="row">label</th><td class="type-status">—</td>`,
		`<li><strong>tag</strong>: <span class="type-error">items is an object, not an array &lt;b&gt;</span></li>`,
		`The other types were synchronized; the next run retries these.`,
		`<tr><th scope="row"><code>note.due</code></th><td class="outcome coerced">coerced</td><td class="count">1203</td><td class="detail">a month-first locale date-time (M/D/YYYY[, h:mm[:ss] AM/PM]), read as UTC</td><td class="example"><code>&#34;11/14/2023, 10:13 PM&#34;</code></td></tr>`,
		`<tr><th scope="row"><code>note.size</code></th><td class="outcome dropped">left empty</td><td class="count">7</td><td class="detail">want a number, got &#34;&lt;big&gt;&#34;</td><td class="example"><code>&#34;&lt;big&gt;&#34;</code></td></tr>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the run page lacks %s:\n%s", want, body)
		}
	}
	if strings.Contains(body, "<b>") || strings.Contains(body, "<big>") {
		t.Error("a value of the app is not escaped")
	}
	if strings.Contains(body, "<strong>note</strong>") || strings.Contains(body, "<strong>label</strong>") {
		t.Error("a type that did not fail is listed as failed")
	}
}
