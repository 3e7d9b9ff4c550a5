package bench

import (
	"fmt"
	"io"
	"os"
	"os/exec"
)

// inFreshNetns runs this binary with args inside a new network namespace
// (`ip netns add`, needs root), its output going to stdout and stderr,
// and deletes the namespace afterwards.
func inFreshNetns(stdout, stderr io.Writer, args ...string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ns := fmt.Sprintf("svcplane-bench-%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		return fmt.Errorf("ip netns add (needs root): %v: %s", err, out)
	}
	defer exec.Command("ip", "netns", "del", ns).Run()
	child := exec.Command("ip", append([]string{"netns", "exec", ns, self}, args...)...)
	child.Stdout, child.Stderr = stdout, stderr
	return child.Run()
}
