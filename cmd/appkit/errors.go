package main

import (
	"errors"
	"flag"
	"fmt"
)

// The exit codes, one meaning each across every command (see the package
// doc).
const (
	exitOK      = 0
	exitFailed  = 1
	exitUsage   = 2
	exitPartial = 3
)

// exitError is the error of a command that carries its process exit code;
// match it with errors.As. An error of a command that is not an exitError
// exits with [exitFailed].
type exitError struct {
	Code int
	Err  error
}

func (e *exitError) Error() string { return e.Err.Error() }

// Unwrap returns the cause, for errors.Is and errors.As.
func (e *exitError) Unwrap() error { return e.Err }

// errHelp is returned by a command whose help was asked for and printed:
// exit 0, nothing more to print.
var errHelp error = &exitError{Code: exitOK, Err: flag.ErrHelp}

// usageErrorf returns an error with [exitUsage]: the command was called
// wrongly and did nothing.
func usageErrorf(format string, a ...any) error {
	return &exitError{Code: exitUsage, Err: fmt.Errorf(format, a...)}
}

// partialError marks err with [exitPartial]: the work stopped before its
// end and a later run may finish it.
func partialError(err error) error { return &exitError{Code: exitPartial, Err: err} }

// exitCode is the process exit code of a command's error.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.Code
	}
	return exitFailed
}
