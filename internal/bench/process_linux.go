package bench

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes a bench's child get SIGTERM when the bench process
// dies (killed, or its output pipe closed), so no server is left behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
