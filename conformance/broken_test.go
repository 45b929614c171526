package conformance_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/conformance/internal/brokenapp"
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
		cfg  func(*conformance.Config)
	}{
		{brk: brokenapp.WrongContentType, want: []string{conformance.CheckContentType}},
		{brk: brokenapp.MissingIDField, want: []string{conformance.CheckSchemaIDName}},
		{brk: brokenapp.RelationOnBothSides, want: []string{conformance.CheckSchemaRelOnce}},
		{brk: brokenapp.RelationUnknownTarget, want: []string{conformance.CheckSchemaRelations}},
		{brk: brokenapp.UnknownSubType, want: []string{conformance.CheckSchemaFieldTypes}},
		// A cursor that comes back is warned about; walking on, the ids
		// come back too, and the run never ends.
		{brk: brokenapp.LoopingCursor, want: []string{conformance.CheckCursorRepeats, conformance.CheckIDsUnique, conformance.CheckPagingEnds}},
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
		{brk: brokenapp.ActionArgTextarea, want: []string{conformance.CheckDescriptorActions}},
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
