//go:build !unix

package devloop

import (
	"context"
	"io"
	"os"
)

// KeyInput is f, the process's standard input, as the developer's keys are
// read from it: here, where no process group is stopped for reading its
// terminal, f itself.
func KeyInput(ctx context.Context, f *os.File) io.Reader { return f }
