package devloop

import "syscall"

// sysProcAttr makes the app end with the process that started it, even
// when that one is killed without a chance to stop it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
