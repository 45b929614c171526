// Command appkit is the one command-line tool of the appkit project: it runs
// the embedded workspace host, synchronizes and checks apps, parses
// date-range statements and more.
//
// Usage:
//
//	appkit <command> [flags] [arguments]
//
// "appkit help" lists the commands; "appkit help CMD" and "appkit CMD -h"
// print a command's help, its flags and the environment variables it reads.
// Help asked for exits 0 ("appkit help" on stdout, "appkit CMD -h" on
// stderr); every other usage message goes to stderr.
//
// # Exit status
//
// Every command uses the same codes:
//
//	0  done
//	1  failed (the reason on stderr)
//	2  usage: a bad flag, argument or environment value; nothing was done
//	3  partial, try again later: "appkit sync" paused by an app that kept
//	   failing with errors that may pass (a later run resumes), or
//	   partial: some types failed (each named with its reason), the others
//	   were synchronized (the next run retries the failed ones);
//	   "appkit conform" stopped before its end (the report is partial)
//
// A bad flag prints two lines: the error and "run 'appkit CMD -h' for
// usage". SIGINT (Ctrl-C) or SIGTERM asks the command to stop gracefully; a
// second SIGINT ends the process at once.
//
// # Flags shared by commands
//
// A flag means the same in every command that has it: --store DSN (env
// APPKIT_STORE), --app URL, --auth ID, --account KEY=VALUE (repeatable; the
// last value of a key wins), --filter KEY=VALUE (repeatable; VALUE read as
// JSON when it is valid JSON, as text otherwise; a list filter takes a
// comma-separated list, a JSON array or the flag repeated), --type ID
// (repeatable) and its spelling --types a,b, --token TOKEN (env APPKIT_TOKEN)
// and --addr HOST:PORT.
//
// Each command lives in its own file of this package and registers itself
// with [register]; it returns an error, and [run] prints it (the one place
// that does) and turns it into the exit code ([exitCode]).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command is one subcommand of the CLI.
type command struct {
	name    string
	summary string
	// run executes the command with the arguments that follow its name.
	// Its error carries the exit code (see [exitError]); a plain error
	// means 1. Usage text and help go to stderr.
	run func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = map[string]command{}

// register adds a subcommand; it is called from init functions.
func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("appkit: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func main() {
	os.Exit(run(signalContext(context.Background(), os.Interrupt, syscall.SIGTERM), os.Args[1:], os.Stdout, os.Stderr))
}

// signalContext returns a context that is done at the first of sigs; from
// then on the signals are no longer caught, so that a second one (Ctrl-C
// again) ends the process at once while the command shuts down.
func signalContext(parent context.Context, sigs ...os.Signal) context.Context {
	ctx, cancel := context.WithCancel(parent)
	caught := make(chan os.Signal, 1)
	signal.Notify(caught, sigs...)
	go func() {
		select {
		case <-caught:
		case <-ctx.Done():
		}
		// Before the context is done: whoever sees it done can count on
		// the next signal taking its default action.
		signal.Stop(caught)
		cancel()
	}()
	return ctx
}

// run dispatches to a subcommand, prints its error and returns the exit
// code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) == 1 {
			usage(stdout)
			return exitOK
		}
		if len(args) > 2 {
			return commandListUsage(stderr, "appkit help: want one command name")
		}
		// The command's help, asked for: on stdout.
		name, args = args[1], []string{"-h"}
		c, ok := commands[name]
		if !ok {
			return commandListUsage(stderr, "appkit help: unknown command %q", name)
		}
		return report(name, c.run(ctx, args, stdout, stdout), stderr)
	}
	c, ok := commands[name]
	if !ok {
		return commandListUsage(stderr, "appkit: unknown command %q", name)
	}
	return report(name, c.run(ctx, args[1:], stdout, stderr), stderr)
}

// commandListUsage prints a usage error of the command line itself, with
// the hint to list the commands, and returns exitUsage.
func commandListUsage(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, format+"\n", args...)
	fmt.Fprintln(stderr, "run 'appkit help' for the list of commands")
	return exitUsage
}

// report prints the error of command name on stderr (the one place where
// command errors are printed) and returns its exit code.
func report(name string, err error, stderr io.Writer) int {
	code := exitCode(err)
	if err == nil || errors.Is(err, errHelp) {
		return code
	}
	fmt.Fprintf(stderr, "appkit %s: %v\n", name, err)
	if code == exitUsage {
		fmt.Fprintf(stderr, "run 'appkit %s -h' for usage\n", name)
	}
	return code
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "Usage: appkit <command> [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, `
"appkit help CMD" or "appkit CMD -h" prints a command's help.

Exit status, the same for every command:
  0  done
  1  failed (the reason on stderr)
  2  usage: a bad flag, argument or environment value; nothing was done
  3  partial, try again later: sync paused by an app that kept failing with
     errors that may pass (run again to resume), or some types failed (each
     named with its reason) and the others were synchronized (the next run
     retries the failed ones); conform stopped before its end (the report is
     partial)
`)
}
