package conformance_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/appkitgo/appkit/conformance"
	"github.com/appkitgo/appkit/conformance/internal/brokenapp"
)

// Run checks an app and returns the report; a broken rule shows as a failed
// check with what was expected, what came back and the rule it breaks.
func ExampleRun() {
	rep, err := conformance.Run(context.Background(), conformance.Config{
		Handler: brokenapp.New(brokenapp.WrongItemType), // or URL: "http://localhost:8080"
		Account: map[string]any{"token": brokenapp.Token},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rep.Results {
		if r.Status == conformance.Failed {
			fmt.Printf("%s\n  expected: %s\n  got: %s\n  rule: %s\n", r.Name(), r.Expected, r.Got, r.Rule)
		}
	}
	fmt.Println(rep.Summary())
	// Output:
	// data.items-match-schema [task]
	//   expected: values of the declared types
	//   got: type "task", page 2, item "t4", field "priority": value shape: want a number, got "high" (and 1 more problem)
	//   rule: docs/protocol.md#items
	// 123 passed, 1 failed, 0 skipped
}

// A run bounded in time and types, followed as it goes: Progress is called
// at the start of each stage and of each type's pages, and after each
// result. A run stopped by its context or by TotalTimeout returns its
// partial report with an error matching ErrStopped.
func ExampleRun_progress() {
	rep, err := conformance.Run(context.Background(), conformance.Config{
		Handler:      brokenapp.New(brokenapp.None),
		Account:      map[string]any{"token": brokenapp.Token},
		TotalTimeout: 5 * time.Minute,
		MaxTypes:     1,
		Progress: func(p conformance.Progress) {
			switch {
			case p.Result != nil:
			case p.Type != "":
				fmt.Printf("  %s (%d of %d)\n", p.Type, p.Index, p.Types)
			default:
				fmt.Println(p.Stage)
			}
		},
	})
	if errors.Is(err, conformance.ErrStopped) {
		fmt.Println("stopped:", rep.Stopped)
	}
	fmt.Println(rep.OK())
	// Output:
	// descriptor
	// accounts
	// sync
	// data
	//   project (1 of 1)
	// errors
	// webhooks
	// actions
	// transport
	// true
}
