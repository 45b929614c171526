package conformance_test

import (
	"context"
	"fmt"

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
	// 119 passed, 1 failed, 0 skipped
}
