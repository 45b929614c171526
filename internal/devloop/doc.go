// Package devloop is the live loop of "appkit dev": it builds an app's main
// package, runs it on a loopback port, watches the module's sources and,
// on a change, rebuilds, restarts and hands the new app to the caller
// (which checks and synchronizes it); a build that fails, or whose app
// exits before it answers, leaves the last good app serving, and an app
// that exits later is replaced by the good build before it. Each part is
// small and usable alone:
//
//   - [Build] runs "go build" into a file and returns the compiler's
//     messages as a [*BuildError];
//   - [Start] runs the built app with $HOST (127.0.0.1) and $PORT set,
//     [Process.Stop] stops it
//     gracefully (an interrupt, a wait, then a kill) and [WaitReady] waits
//     until it answers;
//   - [Watch] reports the changed sources in debounced batches
//     ([Relevant] says which files count: Go files that are not tests,
//     and go.mod; editors' temporary and lock files never do);
//   - [TakeSnapshot] and [Changes] say, for a few items, which fields a
//     synchronization changed;
//   - [Check] runs the conformance suite's descriptor, account, config and
//     schema checks (a fast subset: no data pages);
//   - [AppLog] keeps the app's output in a file, appended to and rotated;
//   - [KeyInput] reads the developer's keys from a terminal only while the
//     process is in its foreground ("appkit dev &" is not stopped);
//   - [Loop] ties them together, and prints the last lines of an app that
//     exits unasked (Config.Tail), whose output the developer does not see.
//
// Limits: a snapshot holds at most [SnapshotItems] items per type (those
// with the smallest ids) and their primitive, selection and relation
// fields (not rich texts and collections); [Changes] reports at most a
// given number of items per type; an [AppLog] holds at most twice its cap
// (the file and the one before it, PATH.1) plus one write; the lines shown
// of a crash come from the app's last 16 KiB of output.
package devloop
