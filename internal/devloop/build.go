package devloop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// BuildError is the error of a build that the compiler refused (or that
// could not run): Output holds the go command's messages.
type BuildError struct {
	// Output is what "go build" printed (stdout and stderr).
	Output string
	// Err is the go command's error (its exit status).
	Err error
}

func (e *BuildError) Error() string {
	msg := strings.TrimSpace(e.Output)
	if msg == "" {
		return fmt.Sprintf("go build: %v", e.Err)
	}
	return fmt.Sprintf("go build: %v\n%s", e.Err, msg)
}

func (e *BuildError) Unwrap() error { return e.Err }

// Build compiles the main package in dir into the file out with the go
// command on $PATH ("go build -o out ."), in the environment of the
// process. A refused build returns a [*BuildError].
func Build(ctx context.Context, dir, out string) error {
	var buf bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, ".")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("go build: %w", context.Cause(ctx))
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) || buf.Len() > 0 {
			return &BuildError{Output: buf.String(), Err: err}
		}
		return fmt.Errorf("go build: %w", err)
	}
	return nil
}
