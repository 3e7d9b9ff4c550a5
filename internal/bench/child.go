package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// child is a process of another program (etcd, kube-apiserver,
// kube-controller-manager) that a bench started, logging to
// <dir>/<name>.log; a goroutine waits for it, so that a bench can tell at
// once that it exited.
type child struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
}

// startChild runs bin with args, its output to dir/<name>.log.
func startChild(dir, name, bin string, args ...string) (*child, error) {
	c := &child{name: name, log: filepath.Join(dir, name+".log"), done: make(chan struct{})}
	f, err := os.Create(c.log)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c.cmd = exec.Command(bin, args...)
	c.cmd.Stdout, c.cmd.Stderr = f, f
	dieWithParent(c.cmd)
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	go func() {
		c.err = c.cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// exitErr is an error saying that the child ended, with its log's last
// lines, or nil while it runs.
func (c *child) exitErr() error {
	select {
	case <-c.done:
		return fmt.Errorf("%s exited (%v); last lines of %s:\n%s", c.name, c.err, c.log, c.tail(15))
	default:
		return nil
	}
}

// stop sends SIGTERM and waits up to grace, then kills the process.
func (c *child) stop(grace time.Duration) {
	if c == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(grace):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// tail is the last n lines of the child's log.
func (c *child) tail(n int) string {
	b, err := os.ReadFile(c.log)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
