//go:build !linux

package bench

import "os/exec"

// dieWithParent is a no-op where the kernel has no parent-death signal.
func dieWithParent(*exec.Cmd) {}
