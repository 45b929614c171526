//go:build !windows

package devloop

import "syscall"

var sigterm = syscall.SIGTERM
