package kubelettest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/svcplane/svcplane/internal/node/container"
)

// HostStreams is a container.Streams over host processes and addresses.
type HostStreams struct {
	mu sync.Mutex
	// logs are the log lines per pod and container, each with its time.
	logs map[types.UID]map[string][]LogLine
	// ports map a pod's port to a host address (e.g. 127.0.0.1:34567).
	ports map[types.UID]map[int32]string
	pods  map[types.UID]bool
}

// LogLine is one line of a container's log.
type LogLine struct {
	Time time.Time
	Text string
}

// NewHostStreams returns streams that know no pod yet.
func NewHostStreams() *HostStreams {
	return &HostStreams{logs: map[types.UID]map[string][]LogLine{}, ports: map[types.UID]map[int32]string{}, pods: map[types.UID]bool{}}
}

// AddPod makes pod known: its containers' logs and its ports' host
// addresses.
func (h *HostStreams) AddPod(pod types.UID, logs map[string][]LogLine, ports map[int32]string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pods[pod], h.logs[pod], h.ports[pod] = true, logs, ports
}

func (h *HostStreams) known(pod types.UID) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pods[pod]
}

// Logs writes the container's lines, honouring TailLines, SinceTime,
// Timestamps and LimitBytes (Follow returns at the end: nothing more is
// ever written).
func (h *HostStreams) Logs(_ context.Context, pod types.UID, c string, opts *corev1.PodLogOptions, w io.Writer) error {
	h.mu.Lock()
	lines, ok := h.logs[pod][c]
	h.mu.Unlock()
	if !ok || !h.known(pod) {
		return container.ErrNotFound
	}
	if opts.SinceTime != nil {
		var kept []LogLine
		for _, l := range lines {
			if !l.Time.Before(opts.SinceTime.Time) {
				kept = append(kept, l)
			}
		}
		lines = kept
	}
	if opts.TailLines != nil && int(*opts.TailLines) < len(lines) {
		lines = lines[len(lines)-int(*opts.TailLines):]
	}
	var buf bytes.Buffer
	for _, l := range lines {
		if opts.Timestamps {
			buf.WriteString(l.Time.UTC().Format(time.RFC3339Nano) + " ")
		}
		buf.WriteString(l.Text + "\n")
	}
	out := buf.Bytes()
	if opts.LimitBytes != nil && int(*opts.LimitBytes) < len(out) {
		out = out[:*opts.LimitBytes]
	}
	_, err := w.Write(out)
	return err
}

// Exec runs the command as a host process.
func (h *HostStreams) Exec(ctx context.Context, pod types.UID, _ string, opts container.ExecOptions) (int, error) {
	if !h.known(pod) {
		return 0, container.ErrNotFound
	}
	if len(opts.Command) == 0 {
		return 0, fmt.Errorf("no command")
	}
	cmd := exec.CommandContext(ctx, opts.Command[0], opts.Command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = opts.Stdin, opts.Stdout, opts.Stderr
	if opts.TTY {
		cmd.Stderr = opts.Stdout
	}
	err := cmd.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &exitErr):
		return exitErr.ExitCode(), nil
	case errors.Is(err, exec.ErrNotFound):
		if opts.Stderr != nil {
			fmt.Fprintf(opts.Stderr, "exec: %q: executable file not found in $PATH\n", opts.Command[0])
		}
		return 127, nil
	}
	return 0, err
}

// PortForward connects stream to the host address of the pod's port.
func (h *HostStreams) PortForward(ctx context.Context, pod types.UID, port int32, stream io.ReadWriteCloser) error {
	h.mu.Lock()
	addr, ok := h.ports[pod][port]
	known := h.pods[pod]
	h.mu.Unlock()
	if !known {
		return container.ErrNotFound
	}
	if !ok {
		return fmt.Errorf("nothing listens on port %d", port)
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(conn, stream); _ = conn.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
	go func() { _, _ = io.Copy(stream, conn); done <- struct{}{} }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	return nil
}

// EchoServer listens on a loopback port and answers each line with
// prefix + the line, until ctx ends; it returns its address.
func EchoServer(ctx context.Context, prefix string) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go func() { <-ctx.Done(); _ = l.Close() }()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					if _, err := io.WriteString(c, prefix+strings.TrimSpace(sc.Text())+"\n"); err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String(), nil
}
