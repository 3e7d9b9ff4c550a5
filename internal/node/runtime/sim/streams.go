package sim

import (
	"context"
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/svcplane/svcplane/internal/node/container"
)

var _ container.Streams = (*Runtime)(nil)

// Logs writes a running pod's log: empty, as nothing runs in it; with
// Follow it returns when ctx ends or the pod is killed. Unknown pods are
// container.ErrNotFound.
func (r *Runtime) Logs(ctx context.Context, pod types.UID, _ string, opts *corev1.PodLogOptions, _ io.Writer) error {
	r.mu.Lock()
	stopped, ok := r.stopped[pod]
	if ok && opts.Follow {
		r.following++
	}
	r.mu.Unlock()
	if !ok {
		return container.ErrNotFound
	}
	if opts.Follow {
		select {
		case <-ctx.Done():
		case <-stopped:
		}
		r.mu.Lock()
		r.following--
		r.mu.Unlock()
	}
	return nil
}

// Exec is container.ErrNotSupported: no process runs to exec in.
func (r *Runtime) Exec(context.Context, types.UID, string, container.ExecOptions) (int, error) {
	return 0, container.ErrNotSupported
}

// PortForward is container.ErrNotSupported: nothing listens in the pod.
func (r *Runtime) PortForward(context.Context, types.UID, int32, io.ReadWriteCloser) error {
	return container.ErrNotSupported
}

// RunsNoProcesses tells the kubelet API to refuse exec and port-forward
// before upgrading the connection.
func (r *Runtime) RunsNoProcesses() bool { return true }
