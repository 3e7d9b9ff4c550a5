package container

import (
	"context"
	"errors"
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ErrNotSupported is returned by a runtime that cannot do what was asked
// (the simulated runtime runs no process to exec in or read a log of).
var ErrNotSupported = errors.New("the pod's runtime runs no process: use the netns runtime (--runtime netns)")

// ErrNotFound is returned for a pod or container the runtime does not run.
var ErrNotFound = errors.New("container not found")

// TerminalSize is a TTY's size, as a client resizes it.
type TerminalSize struct {
	Width, Height uint16
}

// ExecOptions describe one command to run in a pod's container.
type ExecOptions struct {
	// Command is the argv; Command[0] is looked up as the container would
	// (a built-in such as /agnhost, else a program on the host's PATH).
	Command []string
	// Stdin is nil when the client sends none.
	Stdin io.Reader
	// Stdout and Stderr are nil when the client does not want them; with
	// TTY, Stderr is unused and Stdout carries both.
	Stdout, Stderr io.Writer
	TTY            bool
	// Resize delivers the client's terminal sizes (nil: none).
	Resize <-chan TerminalSize
}

// Streams is implemented by runtimes whose containers run processes.
type Streams interface {
	// Logs writes container's output to w as `kubectl logs` shows it,
	// honouring opts (Follow keeps writing until ctx ends or the
	// container stops; TailLines, LimitBytes, SinceSeconds/SinceTime,
	// Timestamps, Previous).
	Logs(ctx context.Context, pod types.UID, container string, opts *corev1.PodLogOptions, w io.Writer) error
	// Exec runs opts.Command in the pod's network namespace with the
	// container's environment and returns its exit code; err is for a
	// command that could not be started (not found: exit code 127 and
	// no error, as a shell would say).
	Exec(ctx context.Context, pod types.UID, container string, opts ExecOptions) (exitCode int, err error)
	// PortForward connects stream to port of the pod (its network
	// namespace's loopback, as the kubelet does) until either side closes.
	PortForward(ctx context.Context, pod types.UID, port int32, stream io.ReadWriteCloser) error
}
