package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appkitgo/appkit/appkit/protocol"

	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/conformance/internal/brokenapp"
	"github.com/appkitgo/appkit/internal/pagerules"
)

// brokenConfig is the run against a brokenapp: its good account, bounds
// small enough to catch an endless walk quickly, and a slow-answer bound no
// healthy answer comes near.
func brokenConfig(brk brokenapp.Break) conformance.Config {
	return conformance.Config{
		Handler:   brokenapp.New(brk),
		Account:   map[string]any{"token": brokenapp.Token},
		MaxPages:  20,
		SlowAfter: time.Minute,
	}
}

// The intact app passes every check, without warnings, and skips none but
// what it does not offer.
func TestIntactApp(t *testing.T) {
	t.Parallel()
	rep := conformance.Test(t, brokenConfig(brokenapp.None))
	if rep.Failed+rep.Warnings > 0 {
		t.Fatalf("the intact app broke %v", rep.FailedIDs())
	}
	for _, r := range rep.Results {
		if r.Status == conformance.Skipped {
			t.Errorf("skipped %s: %s", r.Name(), r.Why)
		}
	}
}

// Each broken rule is caught by the check meant for it, and by no other.
func TestBrokenApps(t *testing.T) {
	t.Parallel()
	cases := []struct {
		brk  brokenapp.Break
		want []string // the checks that fail or warn, exactly
		got  string   // when set, in the got of the first of them
		cfg  func(*conformance.Config)
	}{
		{brk: brokenapp.WrongContentType, want: []string{conformance.CheckContentType}},
		{brk: brokenapp.MissingIDField, want: []string{conformance.CheckSchemaIDName}},
		{brk: brokenapp.RelationOnBothSides, want: []string{conformance.CheckSchemaRelOnce}},
		{brk: brokenapp.RelationUnknownTarget, want: []string{conformance.CheckSchemaRelations}},
		{brk: brokenapp.UnknownSubType, want: []string{conformance.CheckSchemaFieldTypes}},
		// A cursor that comes back fails at once, and the walk stops
		// there: no run that never ends, no ids coming back.
		{brk: brokenapp.LoopingCursor, want: []string{conformance.CheckCursorRepeats}, got: `repeats the one of page 1`},
		{brk: brokenapp.RepeatedPage, want: []string{conformance.CheckPageRepeats}, got: `are exactly those of page 1`},
		{brk: brokenapp.EndlessHasNext, want: []string{conformance.CheckPagingEnds}},
		{brk: brokenapp.ObjectlessCursor, want: []string{conformance.CheckPageShape}},
		{brk: brokenapp.Status500Not401, want: []string{conformance.CheckRejectGarbage}},
		{brk: brokenapp.GarbageAccepted, want: []string{conformance.CheckRejectGarbage}},
		{brk: brokenapp.OAuthGarbageAccepted, want: []string{conformance.CheckRejectGarbage}},
		{brk: brokenapp.UnknownAuthAccepted, want: []string{conformance.CheckRejectUnknownID}},
		{brk: brokenapp.ValidateWithoutName, want: []string{conformance.CheckValidateAccount}},
		{brk: brokenapp.HTMLErrors, want: []string{conformance.CheckErrorBody, conformance.CheckMistakeAnswers}},
		{brk: brokenapp.MalformedBodyHTML, want: []string{conformance.CheckMistakeAnswers}},
		{brk: brokenapp.WrongItemType, want: []string{conformance.CheckItemsSchema}},
		{brk: brokenapp.BadDay, want: []string{conformance.CheckItemsSchema}},
		{brk: brokenapp.MissingItemID, want: []string{conformance.CheckItemsSchema}},
		{brk: brokenapp.DuplicateIDs, want: []string{conformance.CheckIDsUnique}},
		{brk: brokenapp.ExtraItemKeys, want: []string{conformance.CheckItemsExtra}},
		{brk: brokenapp.Nondeterministic, want: []string{conformance.CheckDeterministic}},
		{brk: brokenapp.DeltaWithoutAction, want: []string{conformance.CheckDelta}},
		{brk: brokenapp.BadSyncType, want: []string{conformance.CheckDelta}},
		{brk: brokenapp.LogoPNG, want: []string{conformance.CheckLogo}},
		{brk: brokenapp.SourcesNotEmpty, want: []string{conformance.CheckDescriptorSources}},
		{brk: brokenapp.MissingWebsite, want: []string{conformance.CheckDescriptorRequired}},
		{brk: brokenapp.AuthFieldWithoutName, want: []string{conformance.CheckDescriptorAuthFields}},
		{brk: brokenapp.TwoOAuth2, want: []string{conformance.CheckDescriptorAuth}},
		{brk: brokenapp.ActionArgTextarea, want: []string{conformance.CheckDescriptorArgSpell}, got: `"textarea", read as "textArea"`},
		{brk: brokenapp.AutomationsNoActions, want: []string{conformance.CheckDescriptorResponsib}},
		{brk: brokenapp.HighlightNoEditorMode, want: []string{conformance.CheckFilters}},
		{brk: brokenapp.DatalistIgnoresField, want: []string{conformance.CheckDatalistField}},
		{brk: brokenapp.DependentDatalistShape, want: []string{conformance.CheckDatalistDependsOn}},
		{brk: brokenapp.FilterValidateLax, want: []string{conformance.CheckFilterInvalid}},
		{brk: brokenapp.FilterValidate500, want: []string{conformance.CheckFilterValidate}},
		{brk: brokenapp.MalformedBody500, want: []string{conformance.CheckClientStatus}},
		{brk: brokenapp.UnknownTypeAccepted, want: []string{conformance.CheckUnknownType}},
		{brk: brokenapp.MissingFieldAccepted, want: []string{conformance.CheckMissingField}},
		{brk: brokenapp.SchemaUnknownType, want: []string{conformance.CheckSchemaUnknown}},
		{brk: brokenapp.ConfigWithoutTypes, want: []string{conformance.CheckConfig}},
		{brk: brokenapp.OAuthStateDropped, want: []string{conformance.CheckOAuthAuthorize}},
		{brk: brokenapp.WebhookWithoutID, want: []string{conformance.CheckWebhookInstall}},
		{brk: brokenapp.WebhookDelete500, want: []string{conformance.CheckWebhookRefused}},
		{brk: brokenapp.WebhookDelete202, want: []string{conformance.CheckWebhookDelete}},
		{brk: brokenapp.WebhookInstall500, want: []string{conformance.CheckWebhookRefused}},
		{brk: brokenapp.Status403Not401, want: []string{conformance.CheckRejectGarbage}},
		{brk: brokenapp.FilterInvalid422, want: []string{conformance.CheckFilterInvalidStatus}},
		{brk: brokenapp.DatalistTextPlain, want: []string{conformance.CheckContentTypeOther}},
		{brk: brokenapp.DuplicateAuthFieldIDs, want: []string{conformance.CheckDescriptorUniqueIDs}},
		{brk: brokenapp.DuplicateFilterIDs, want: []string{conformance.CheckSyncUniqueIDs}},
		{brk: brokenapp.RemoveInFullPage, want: []string{conformance.CheckSyncTypeMixed}},
		{brk: brokenapp.LogoNotServed, want: nil},
		{brk: brokenapp.GarbageTryLater, want: nil},
		{brk: brokenapp.LinkOnlyAuth, want: nil},
		{brk: brokenapp.ValidateTryLater, want: nil},
		{brk: brokenapp.TransformWithoutAction, want: []string{conformance.CheckWebhookTransform}},
		{brk: brokenapp.ActionArgsIgnored, want: []string{conformance.CheckActionArgs}},
		{brk: brokenapp.UnknownActionAccepted, want: []string{conformance.CheckActionUnknown}},
		{brk: brokenapp.HangingData, want: []string{conformance.CheckNoAnswer},
			cfg: func(c *conformance.Config) { c.Timeout = 300 * time.Millisecond }},
		{brk: brokenapp.ErrorTryLaterString, want: []string{conformance.CheckErrorBody, conformance.CheckMistakeAnswers}},
		{brk: brokenapp.BooleanAsJSON, want: []string{conformance.CheckItemsWireForm}},
		{brk: brokenapp.LocaleDates, want: []string{conformance.CheckItemsWireForm}, got: `got "11/14/2023, 10:13 PM": ` + string(pagerules.USDate)},
		{brk: brokenapp.MarkdownLines, want: []string{conformance.CheckItemsWireForm}, got: `got ["*hi*","and more"]: ` + string(pagerules.JoinedLines)},
		{brk: brokenapp.PublicAuth, want: nil},
		{brk: brokenapp.PublicAuthNoFields, want: nil},
		// The items' __syncAction is then a key outside the schema too.
		{brk: brokenapp.DeltaUndeclared, want: []string{conformance.CheckDeltaDeclared, conformance.CheckItemsExtra}},
		{brk: brokenapp.TryLaterOnce, want: nil},
		{brk: brokenapp.SlowLogo, want: []string{conformance.CheckSlow},
			cfg: func(c *conformance.Config) { c.SlowAfter = 40 * time.Millisecond }},
	}
	for _, tc := range cases {
		t.Run(string(tc.brk), func(t *testing.T) {
			t.Parallel()
			cfg := brokenConfig(tc.brk)
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			rep, err := conformance.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := rep.FailedIDs(); !slices.Equal(got, tc.want) {
				var b strings.Builder
				_ = rep.WriteText(&b)
				t.Errorf("broken checks %v, want %v\n%s", got, tc.want, failuresOnly(b.String()))
			}
			if tc.got != "" {
				if r := firstBroken(rep); !strings.Contains(r.Got, tc.got) {
					t.Errorf("%s: got %q, want it to contain %q", r.Name(), r.Got, tc.got)
				}
			}
			var js strings.Builder
			_ = rep.WriteJSON(&js)
			if strings.Contains(js.String(), brokenapp.Token) || strings.Contains(js.String(), brokenapp.AccessToken) {
				t.Errorf("the report shows the account's token:\n%s", js.String())
			}
			warnOnly := true
			for _, id := range tc.want {
				for _, c := range conformance.Checks() {
					if c.ID == id && c.Severity == conformance.Failure {
						warnOnly = false
					}
				}
			}
			if rep.OK() != warnOnly {
				t.Errorf("OK() = %v with broken checks %v: only failures may fail a run", rep.OK(), tc.want)
			}
		})
	}
}

// firstBroken is the first failed or warned result of a report.
func firstBroken(rep conformance.Report) conformance.Result {
	for _, r := range rep.Results {
		if r.Status == conformance.Failed || r.Status == conformance.Warned {
			return r
		}
	}
	return conformance.Result{}
}

// failuresOnly keeps the FAIL and WARN entries of a text report.
func failuresOnly(s string) string {
	var out []string
	keep := false
	for _, line := range strings.Split(s, "\n") {
		switch {
		case strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "WARN"):
			keep = true
		case strings.HasPrefix(line, "      ") && keep:
		default:
			keep = false
		}
		if keep {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// Without an account, what needs one is skipped with the reason, and
// nothing fails for it.
func TestWithoutAccount(t *testing.T) {
	t.Parallel()
	cfg := brokenConfig(brokenapp.None)
	cfg.Account = nil
	rep, err := conformance.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed+rep.Warnings > 0 {
		t.Fatalf("broken checks without an account: %v", rep.FailedIDs())
	}
	skipped := map[string]string{}
	for _, r := range rep.Results {
		if r.Status == conformance.Skipped {
			skipped[r.ID] = r.Why
		}
	}
	for _, id := range []string{conformance.CheckValidateAccount, conformance.CheckConfig, conformance.CheckItemsSchema, conformance.CheckActionArgs} {
		if skipped[id] == "" {
			t.Errorf("%s not skipped with a reason", id)
		}
	}
	if skipped[conformance.CheckRejectGarbage] != "" || skipped[conformance.CheckDescriptorRequired] != "" {
		t.Errorf("checks that need no account were skipped: %v", skipped)
	}
}

// A run against an address where nothing listens fails transport.answers
// and skips the rest; Run itself succeeds.
func TestNothingListens(t *testing.T) {
	t.Parallel()
	rep, err := conformance.Run(context.Background(), conformance.Config{URL: "http://127.0.0.1:1", Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.FailedIDs(); !slices.Equal(got, []string{conformance.CheckNoAnswer}) || rep.OK() {
		t.Fatalf("broken checks %v, want [%s]", got, conformance.CheckNoAnswer)
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	for _, cfg := range []conformance.Config{
		{},
		{URL: "http://a", Handler: brokenapp.New(brokenapp.None)},
		{URL: "ftp://a"},
		{URL: "localhost:8080"},
		{URL: "http://a/?x=1"},
	} {
		if _, err := conformance.Run(context.Background(), cfg); err == nil {
			t.Errorf("Run(%+v) = nil error", cfg)
		}
	}
}

// dataRequests counts the data requests for each requested type that reach
// the handler.
type dataRequests struct {
	next http.Handler
	mu   sync.Mutex
	n    map[string]int
}

func (d *dataRequests) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == protocol.PathData {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var in struct{ RequestedType string }
		_ = json.Unmarshal(body, &in)
		d.mu.Lock()
		d.n[in.RequestedType]++
		d.mu.Unlock()
	}
	d.next.ServeHTTP(w, r)
}

// A cursor that repeats forever, or pages that repeat the first page's ids
// under fresh cursors forever, fail at once (as the sync fails the type),
// and the suite stops walking the type there: a few data requests, not the
// page bound's worth of duplicates. The pages read until the repeat are
// checked; the checks that need the run's end, a second run or the delta
// run are skipped, saying why.
func TestRepeatsStopTheWalk(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		brk   brokenapp.Break
		check string
	}{
		{brokenapp.LoopingCursor, conformance.CheckCursorRepeats},
		{brokenapp.RepeatedPage, conformance.CheckPageRepeats},
	} {
		t.Run(string(tc.brk), func(t *testing.T) {
			t.Parallel()
			cfg := brokenConfig(tc.brk)
			cfg.MaxPages = 0 // the default bound, 1,000 pages
			counter := &dataRequests{next: cfg.Handler, n: map[string]int{}}
			cfg.Handler = counter
			rep, err := conformance.Run(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() {
				t.Errorf("OK() with %s broken", tc.check)
			}
			counter.mu.Lock()
			n := counter.n["task"]
			counter.mu.Unlock()
			if n >= 10 {
				t.Errorf("%d data requests for task, want fewer than 10: the walk goes on after the repeat", n)
			}
			var failed, skippedEnds, pagesChecked bool
			for _, r := range rep.Results {
				switch {
				case r.ID == tc.check && r.Subject == "task":
					failed = r.Status == conformance.Failed
				case r.ID == conformance.CheckItemsSchema && r.Subject == "task":
					pagesChecked = r.Status == conformance.Passed
				case r.ID == conformance.CheckPagingEnds && r.Subject == "task":
					skippedEnds = r.Status == conformance.Skipped && strings.Contains(r.Why, "stopped at page 2") && strings.Contains(r.Why, tc.check)
					if !skippedEnds {
						t.Errorf("%s: %s %q, want skipped with why naming the stop at page 2 and %s", r.Name(), r.Status, r.Why, tc.check)
					}
				}
			}
			if !failed {
				t.Errorf("%s [task] did not fail", tc.check)
			}
			if !skippedEnds {
				t.Errorf("no result of %s [task]", conformance.CheckPagingEnds)
			}
			if !pagesChecked {
				t.Errorf("%s [task] did not pass over the pages read before the repeat", conformance.CheckItemsSchema)
			}
		})
	}
}

// An authentication without fields (fields: [], or no fields key) is
// validated with an empty account when none is given, as appkit sync picks
// and validates it: every check runs without an account as with one, and
// none is skipped for want of an account.
func TestAuthWithoutFields(t *testing.T) {
	t.Parallel()
	for _, brk := range []brokenapp.Break{brokenapp.PublicAuth, brokenapp.PublicAuthNoFields} {
		t.Run(string(brk), func(t *testing.T) {
			t.Parallel()
			skipped := func(account map[string]any) (int, []string) {
				cfg := brokenConfig(brk)
				cfg.Account = account
				rep, err := conformance.Run(context.Background(), cfg)
				if err != nil {
					t.Fatal(err)
				}
				if rep.Failed+rep.Warnings > 0 {
					t.Errorf("account %v: broken checks %v", account, rep.FailedIDs())
				}
				var why []string
				for _, r := range rep.Results {
					if r.Status == conformance.Skipped {
						why = append(why, r.Name()+": "+r.Why)
					}
				}
				return rep.Passed, why
			}
			passedWith, skippedWith := skipped(map[string]any{"token": brokenapp.Token})
			passedWithout, skippedWithout := skipped(nil)
			if len(skippedWithout) != len(skippedWith) || passedWithout != passedWith {
				t.Errorf("without an account: %d passed, %d skipped %q; with one: %d passed, %d skipped %q",
					passedWithout, len(skippedWithout), skippedWithout, passedWith, len(skippedWith), skippedWith)
			}
			for _, w := range skippedWithout {
				if strings.Contains(w, "account") {
					t.Errorf("skipped for want of an account: %s", w)
				}
			}
		})
	}
}
