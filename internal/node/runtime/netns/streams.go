package netns

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/svcplane/svcplane/internal/node/container"
)

func (r *Runtime) container(uid types.UID, name string) (*pod, *ctr, error) {
	p, err := r.pod(uid)
	if err != nil {
		return nil, nil, err
	}
	return containerOf(p, name)
}

// containerOf finds a container (or init container) of p by name.
func containerOf(p *pod, name string) (*pod, *ctr, error) {
	for _, c := range append(append([]*ctr(nil), p.inits...), p.containers...) {
		if c.spec.Name == name {
			return p, c, nil
		}
	}
	return nil, nil, container.ErrNotFound
}

// Logs implements container.Streams from the output the runtime keeps
// (the current run, or with Previous the one before).
func (r *Runtime) Logs(ctx context.Context, uid types.UID, name string, opts *corev1.PodLogOptions, w io.Writer) error {
	lp, err := r.loggedPod(uid)
	if err != nil {
		return err
	}
	p, c, err := containerOf(lp, name)
	if err != nil {
		return err
	}
	if opts == nil {
		opts = &corev1.PodLogOptions{}
	}
	p.mu.Lock()
	buf := c.log
	if opts.Previous {
		buf = c.prevLog
	}
	p.mu.Unlock()
	if buf == nil {
		return fmt.Errorf("previous terminated container %q in pod %q not found", name, p.spec.Name)
	}
	return writeLogs(ctx, buf, opts, w)
}

func writeLogs(ctx context.Context, buf *logBuf, opts *corev1.PodLogOptions, w io.Writer) error {
	var since time.Time
	if opts.SinceTime != nil {
		since = opts.SinceTime.Time
	}
	if opts.SinceSeconds != nil {
		since = buf.clock.Now().Add(-time.Duration(*opts.SinceSeconds) * time.Second)
	}
	limit := int64(-1)
	if opts.LimitBytes != nil {
		limit = *opts.LimitBytes
	}
	lines, wake, closed := buf.snapshot()
	var kept []logLine
	for _, l := range lines {
		if !l.at.Before(since) {
			kept = append(kept, l)
		}
	}
	if opts.TailLines != nil && int64(len(kept)) > *opts.TailLines {
		kept = kept[int64(len(kept))-*opts.TailLines:]
	}
	written := int64(0)
	emit := func(l logLine) bool {
		data := l.data
		if opts.Timestamps {
			data = append([]byte(l.at.UTC().Format(time.RFC3339Nano)+" "), data...)
		}
		if limit >= 0 && written+int64(len(data)) > limit {
			data = data[:limit-written]
		}
		n, err := w.Write(data)
		written += int64(n)
		return err == nil && (limit < 0 || written < limit)
	}
	for _, l := range kept {
		if !emit(l) {
			return nil
		}
	}
	seen := len(lines)
	for opts.Follow && !closed {
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		}
		lines, wake, closed = buf.snapshot()
		for _, l := range lines[min(seen, len(lines)):] {
			if !emit(l) {
				return nil
			}
		}
		seen = len(lines)
	}
	return nil
}

// Exec implements container.Streams: an agnhost built-in, or a host
// program run in the pod's namespace with the container's environment
// (exit 127 when there is no such program). A TTY is not emulated: with
// TTY, stderr goes to stdout.
func (r *Runtime) Exec(ctx context.Context, uid types.UID, name string, opts container.ExecOptions) (int, error) {
	p, c, err := r.container(uid, name)
	if err != nil {
		return 0, err
	}
	stdout, stderr := opts.Stdout, opts.Stderr
	if opts.TTY {
		stderr = stdout
	}
	return p.execIn(ctx, c, opts.Command, opts.Stdin, stdout, stderr)
}

// PortForward implements container.Streams: stream is joined to a
// connection to port on the pod namespace's loopback.
func (r *Runtime) PortForward(ctx context.Context, uid types.UID, port int32, stream io.ReadWriteCloser) error {
	p, err := r.pod(uid)
	if err != nil {
		return err
	}
	defer stream.Close()
	conn, err := dialIn(ctx, p.ns, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(int(port))))
	if err != nil {
		return fmt.Errorf("failed to connect to localhost:%d inside namespace of pod %s: %w", port, p.spec.Name, err)
	}
	defer conn.Close()
	// The pod's side ending ends the stream; the client's ending only
	// half-closes, the pod may still answer.
	podDone := make(chan struct{})
	go func() { _, _ = io.Copy(stream, conn); close(podDone) }()
	go func() { _, _ = io.Copy(conn, stream); closeWrite(conn) }()
	select {
	case <-ctx.Done():
	case <-podDone:
	}
	return nil
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
}
