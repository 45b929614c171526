//go:build windows

package devloop

import "os"

var sigterm = os.Interrupt
