package netns

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
	"io"
	"os"
	"os/exec"
	"path"
	"runtime"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// hostProgram runs a program of the host in the pod's namespace with the
// container's environment; its output is the container's log and its
// exit status the container's (128+n when killed by signal n).
func hostProgram(path string, argv []string) program {
	return func(ctx context.Context, pio *procIO) int {
		env, err := containerEnv(ctx, pio.pod.r.cfg.Client, pio.pod.spec, &pio.ctr.spec, pio.pod.hostname)
		if err != nil {
			fmt.Fprintf(pio.stderr, "Error: %v\n", err)
			return 1
		}
		code, err := pio.pod.runHost(ctx, &pio.ctr.spec, path, argv, env, nil, pio.stdout, pio.stderr)
		if err != nil {
			fmt.Fprintln(pio.stderr, err)
		}
		return code
	}
}

// workDir is c's working directory: its workingDir where the host has it
// or a volume is mounted there, else "/".
func workDir(c *corev1.Container, mounts []emptyDirMount) string {
	for _, m := range mounts {
		if c.WorkingDir != "" && path.Clean(c.WorkingDir) == m.target {
			return m.target
		}
	}
	if c.WorkingDir != "" {
		if st, err := os.Stat(c.WorkingDir); err == nil && st.IsDir() {
			return c.WorkingDir
		}
	}
	return "/"
}

// runHost starts path in the pod's namespace as container c and waits for
// it (in c's working directory, with c's emptyDir volumes); ctx's end
// kills its process group (SIGKILL; SIGTERM first while the pod is being
// deleted, SIGKILL at its deadline). The child dies with the agent
// (Pdeathsig).
func (p *pod) runHost(ctx context.Context, c *corev1.Container, path string, argv, env []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	mounts := p.emptyDirMounts(c)
	cmd := &exec.Cmd{Path: path, Args: argv, Env: env, Stdin: stdin, Stdout: stdout, Stderr: stderr,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}}
	done := make(chan struct{})
	if err := p.startHost(cmd, mounts, workDir(c, mounts), done); err != nil {
		close(done)
		return 128, err
	}
	go func() {
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		if p.term.Err() != nil && p.ctx.Err() == nil {
			// The pod is being deleted: SIGTERM to the container's
			// main process (as a runtime signals its pid 1), SIGKILL to
			// all of it at the deadline.
			_ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-p.ctx.Done():
			case <-done:
				return
			}
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}()
	err := cmd.Wait()
	close(done)
	if err == nil {
		return 0, nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal()), nil
		}
		return ee.ExitCode(), nil
	}
	return 1, err
}

// exitNotFound is an exec whose program exists neither as a built-in nor
// on the host (exit 127, as a shell says).
const exitNotFound = 127

// execIn runs argv in the pod as an exec in c does (kubectl exec, exec
// probes, agnhost's /shell): the agnhost built-ins ("/agnhost <sub> …")
// in-process, else a host program with the container's environment;
// 127 and a message on stderr when there is no such program.
func (p *pod) execIn(ctx context.Context, c *ctr, argv []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	stdout, stderr = orDiscard(stdout), orDiscard(stderr)
	if len(argv) == 0 {
		return 0, fmt.Errorf("no command")
	}
	if isAgnhost(argv[0]) {
		return agnhostAs(argv[0], argv[1:])(ctx, &procIO{pod: p, ctr: c, stdout: stdout, stderr: stderr}), nil
	}
	path, err := lookProgram(argv[0])
	if err != nil {
		fmt.Fprintf(stderr, "exec: %q: executable file not found in $PATH\n", argv[0])
		return exitNotFound, nil
	}
	env, err := containerEnv(ctx, p.r.cfg.Client, p.spec, &c.spec, p.hostname)
	if err != nil {
		return 0, err
	}
	return p.runHost(ctx, &c.spec, path, argv, env, stdin, stdout, stderr)
}

func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}

// combinedOutput runs argv in the pod as an exec in c would, at most
// 30 s; agnhost's /shell.
func (p *pod) combinedOutput(ctx context.Context, c *ctr, argv []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	code, err := p.execIn(ctx, c, argv, nil, &out, &out)
	if err == nil && code != 0 {
		err = fmt.Errorf("exit status %d", code)
	}
	return out.Bytes(), err
}

// startHost starts cmd in the pod's network namespace and, when the pod has
// its own resolv.conf or the container emptyDir volumes, in a mount
// namespace of its own where that file is bound over /etc/resolv.conf and
// the volumes at their mount paths (the rest of the host's filesystem is
// shared: a lab, not an isolation boundary); dir is its working
// directory there. The thread that forks the child stays alive until done
// closes: Pdeathsig follows the forking thread, and one that entered
// another mount namespace never goes back to the scheduler (it exits with
// its goroutine).
func (p *pod) startHost(cmd *exec.Cmd, mounts []emptyDirMount, dir string, done <-chan struct{}) error {
	if p.resolvConf == "" && len(mounts) == 0 {
		cmd.Dir = dir
		return inNS(p.ns, cmd.Start)
	}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		started <- func() error {
			if err := netns.Set(p.ns); err != nil {
				return fmt.Errorf("enter network namespace: %w", err)
			}
			if err := unix.Unshare(unix.CLONE_NEWNS); err != nil {
				return fmt.Errorf("new mount namespace: %w", err)
			}
			if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
				return fmt.Errorf("private mounts: %w", err)
			}
			if p.resolvConf != "" {
				if err := unix.Mount(p.resolvConf, "/etc/resolv.conf", "", unix.MS_BIND, ""); err != nil {
					return fmt.Errorf("pod resolv.conf: %w", err)
				}
			}
			if err := p.bindEmptyDirs(mounts); err != nil {
				return err
			}
			// The child starts in dir as this thread's mount
			// namespace sees it (cmd.Dir is resolved in the child).
			cmd.Dir = dir
			return cmd.Start()
		}()
		<-done
	}()
	return <-started
}
