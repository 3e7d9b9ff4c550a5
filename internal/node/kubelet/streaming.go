package kubelet

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/httpstream/wsstream"
	"k8s.io/apimachinery/pkg/util/proxy"
	translator "k8s.io/apiserver/pkg/util/proxy"
	"k8s.io/cri-streaming/pkg/streaming/portforward"
	"k8s.io/cri-streaming/pkg/streaming/remotecommand"
	utilexec "k8s.io/utils/exec"

	"github.com/svcplane/svcplane/internal/node/container"
)

// exec serves /exec/{namespace}/{pod}[/{uid}]/{container} with the
// kubelet's streaming protocols (k8s.io/cri-streaming: SPDY
// v1–v4.channel.k8s.io, the legacy WebSocket channels), the command in
// the repeated "command" parameter.
func (h *nodeHandler) exec(w http.ResponseWriter, r *http.Request) {
	opts, err := remotecommand.NewOptions(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	t, ok := h.pod(r)
	if !ok {
		http.Error(w, "pod does not exist", http.StatusNotFound)
		return
	}
	c := r.PathValue("container")
	if !hasContainer(t.Pod, c) {
		http.Error(w, fmt.Sprintf("container %q not found in pod %q", c, t.Pod.Name), http.StatusNotFound)
		return
	}
	if refuseNoProcesses(w, t) {
		return
	}
	if len(r.URL.Query()["command"]) == 0 {
		writeStatus(w, apierrors.NewBadRequest("you must specify at least one command for the container"))
		return
	}
	if wsstream.IsWebSocketRequestWithStreamCloseProtocol(r) {
		// kubectl's WebSocket v5, proxied as is by an API server for a
		// node that declares ExtendWebSocketsToKubelet: translated to
		// SPDY here, as the kubelet does.
		translator.NewStreamTranslatorHandler(h.internalURL(r), h.s.internal.transport(), 0,
			translator.Options{Stdin: opts.Stdin, Stdout: opts.Stdout, Stderr: opts.Stderr, Tty: opts.TTY}).ServeHTTP(w, r)
		return
	}
	remotecommand.ServeExec(w, r, executor{t.Streams}, t.Pod.Name, string(t.UID), c, r.URL.Query()["command"], opts,
		h.s.cfg.StreamIdleTimeout, h.s.cfg.StreamCreationTimeout, remotecommand.SupportedStreamingProtocols)
}

// attach is refused: no runtime of svcplane has a container main process
// whose standard streams one could attach to.
func (h *nodeHandler) attach(w http.ResponseWriter, r *http.Request) {
	if _, ok := h.pod(r); !ok {
		http.Error(w, "pod does not exist", http.StatusNotFound)
		return
	}
	writeStatus(w, apierrors.NewBadRequest("attach is not supported by svcplane's pod runtimes (no container main process to attach to): use kubectl exec"))
}

// portForward serves /portForward/{namespace}/{pod}[/{uid}] with the
// kubelet's port-forward protocols (SPDY portforward.k8s.io, the
// WebSocket v4 channels).
func (h *nodeHandler) portForward(w http.ResponseWriter, r *http.Request) {
	// kubectl's WebSocket-tunnelled SPDY (ExtendWebSocketsToKubelet).
	tunnel := wsstream.IsWebSocketRequestWithTunnelingProtocol(r)
	opts := &portforward.V4Options{}
	if !tunnel {
		var err error
		if opts, err = portforward.NewV4Options(r); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	t, ok := h.pod(r)
	if !ok {
		http.Error(w, "pod does not exist", http.StatusNotFound)
		return
	}
	if refuseNoProcesses(w, t) {
		return
	}
	if tunnel {
		upgrade := proxy.NewUpgradeAwareHandler(h.internalURL(r), h.s.internal.transport(), false, true, errorResponder{})
		// The internal server routes by Host: the node's name.
		upgrade.UseLocationHost = true
		translator.NewTunnelingHandler(upgrade).ServeHTTP(w, r)
		return
	}
	portforward.ServePortForward(w, r, forwarder{t.Streams}, t.Pod.Name, string(t.UID), opts,
		h.s.cfg.StreamIdleTimeout, h.s.cfg.StreamCreationTimeout, portforward.SupportedProtocols)
}

// internalURL is r's URL on the in-process SPDY server.
func (h *nodeHandler) internalURL(r *http.Request) *url.URL {
	return &url.URL{Scheme: "http", Host: h.node, Path: r.URL.Path, RawQuery: r.URL.RawQuery}
}

// errorResponder answers a failed internal upgrade as the kubelet does.
type errorResponder struct{}

func (errorResponder) Error(w http.ResponseWriter, _ *http.Request, err error) {
	http.Error(w, err.Error(), http.StatusInternalServerError)
}

// executor runs ServeExec's commands on a container.Streams.
type executor struct{ streams container.Streams }

func (e executor) ExecInContainer(ctx context.Context, _ string, uid string, c string, cmd []string, in io.Reader, out, errOut io.WriteCloser, tty bool, resize <-chan remotecommand.TerminalSize, timeout time.Duration) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	opts := container.ExecOptions{Command: cmd, TTY: tty}
	if in != nil {
		opts.Stdin = in
	}
	if out != nil {
		opts.Stdout = out
	}
	if errOut != nil && !tty {
		opts.Stderr = errOut
	}
	if resize != nil {
		sizes := make(chan container.TerminalSize)
		opts.Resize = sizes
		done := make(chan struct{})
		defer close(done)
		go func() {
			defer close(sizes)
			for {
				select {
				case s, ok := <-resize:
					if !ok {
						return
					}
					select {
					case sizes <- container.TerminalSize{Width: s.Width, Height: s.Height}:
					case <-done:
						return
					}
				case <-done:
					return
				}
			}
		}()
	}
	code, err := e.streams.Exec(ctx, types.UID(uid), c, opts)
	if err != nil {
		return err
	}
	if code != 0 {
		return utilexec.CodeExitError{Err: fmt.Errorf("command terminated with exit code %d", code), Code: code}
	}
	return nil
}

// forwarder forwards ServePortForward's streams on a container.Streams.
type forwarder struct{ streams container.Streams }

func (f forwarder) PortForward(ctx context.Context, _ string, uid string, port int32, stream io.ReadWriteCloser) error {
	return f.streams.PortForward(ctx, types.UID(uid), port, stream)
}
