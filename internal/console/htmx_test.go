package console_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// hostileIDsAppURL serves an app whose config names filters with ids that
// mean something in htmx's attributes: a CSS selector list
// ("x,#main,#y") and a trigger list ("a, every 1s"), the latter required
// by a datalist filter.
func hostileIDsAppURL(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/":
			io.WriteString(w, `{"id":"ids","name":"Ids","version":"1","description":"d","website":"https://example.com",
			"authentication":[{"id":"token","name":"Token","fields":[{"id":"token","name":"Token","type":"password"}]}],"sources":[],"responsibleFor":{"dataSynchronization":true}}`)
		case "/validate":
			io.WriteString(w, `{"name":"ids account"}`)
		case "/api/v1/synchronizer/config":
			io.WriteString(w, `{"types":[{"id":"note","name":"Notes","default":true}],"filters":[
			{"id":"x,#main,#y","title":"Since","type":"date","optional":true},
			{"id":"a, every 1s","title":"Project","type":"text","optional":true},
			{"id":"status","title":"Status","type":"list","datalist":true,"datalist_requires":["a, every 1s","due"],"optional":true},
			{"id":"due","title":"Due","type":"date","optional":true}]}`)
		case "/api/v1/synchronizer/datalist":
			io.WriteString(w, `{"items":[{"title":"Open","value":"open"}]}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message":"not found"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

var (
	htmxAttr = regexp.MustCompile(`hx-(trigger|target)="([^"]*)"`)
	// The shapes the console's own attributes have, ids reduced to the
	// safe characters.
	safeTarget  = regexp.MustCompile(`^(#[A-Za-z0-9_-]+|next \.hl-preview)$`)
	safeTrigger = regexp.MustCompile(`^(input changed delay:300ms, load|change from:#[A-Za-z0-9_-]+(, change from:#[A-Za-z0-9_-]+)*)$`)
)

// Filter ids chosen by an app reach htmx's attributes only as safe
// element ids: "x,#main,#y" cannot make a date preview replace the page's
// <main>, and "a, every 1s" cannot make a datalist poll the app every
// second. Safe ids are kept as they are, and every label, description and
// target still names an element of the page.
func TestFilterIDsInHTMXAttributes(t *testing.T) {
	e := newEnv(t, "sqlite::memory:")
	ctx := context.Background()
	a, err := e.svc.Registry.RegisterApp(ctx, hostileIDsAppURL(t))
	if err != nil {
		t.Fatal(err)
	}
	acc, err := e.svc.Registry.CreateAccount(ctx, a.ID, "", map[string]any{"token": "ids-token-1"})
	if err != nil {
		t.Fatal(err)
	}
	b := e.browser()
	b.signIn()
	// The datalist's requirements filled in, so that its options are read
	// and the page holds every kind of filter element.
	p := b.get("/apps/" + a.ID + "/syncs/new?account=" + acc.ID)
	if p.code != http.StatusOK {
		t.Fatalf("the sync form: %d\n%s", p.code, p.body)
	}
	attrs := htmxAttr.FindAllStringSubmatch(p.body, -1)
	if len(attrs) < 5 {
		t.Fatalf("%d htmx attributes in the sync form:\n%s", len(attrs), p.body)
	}
	var targets []string
	for _, m := range attrs {
		v := html.UnescapeString(m[2])
		ok := safeTarget.MatchString(v)
		if m[1] == "trigger" {
			ok = safeTrigger.MatchString(v)
		}
		if !ok || strings.Contains(v, "#main") || strings.Contains(v, "every") {
			t.Errorf("hx-%s=%q: an app's filter id reached an htmx attribute", m[1], v)
		}
		if m[1] == "target" && strings.HasPrefix(v, "#") {
			targets = append(targets, v[1:])
		}
		if m[1] == "trigger" && strings.HasPrefix(v, "change from:#") {
			for _, part := range strings.Split(v, ", ") {
				targets = append(targets, strings.TrimPrefix(part, "change from:#"))
			}
		}
	}
	// What the attributes name, and what labels and descriptions point
	// at, are elements of the page.
	for _, m := range regexp.MustCompile(`(?:for|aria-describedby|aria-labelledby)="([^"]+)"`).FindAllStringSubmatch(p.body, -1) {
		targets = append(targets, strings.Fields(html.UnescapeString(m[1]))...)
	}
	for _, id := range targets {
		if !strings.Contains(p.body, `id="`+id+`"`) {
			t.Errorf("%q is named in the page but no element has that id", id)
		}
	}
	// A safe id is kept: the date filter "due" previews into #due-range.
	if !strings.Contains(p.body, `hx-target="#due-range"`) || !strings.Contains(p.body, `id="due-range"`) {
		t.Error("the safe filter id due is not kept as it is")
	}
}
