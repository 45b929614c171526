//go:build !linux

package devloop

import "syscall"

func sysProcAttr() *syscall.SysProcAttr { return nil }
