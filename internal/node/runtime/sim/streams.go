package sim

import (
	"context"
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/svcplane/svcplane/internal/node/container"
)

var _ container.Streams = (*Runtime)(nil)

// Logs writes a running pod's log: empty, as nothing runs in it. Unknown
// pods are container.ErrNotFound.
func (r *Runtime) Logs(_ context.Context, pod types.UID, _ string, _ *corev1.PodLogOptions, _ io.Writer) error {
	if _, ok := r.Running(pod); !ok {
		return container.ErrNotFound
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
