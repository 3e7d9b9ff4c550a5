package pod

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/httpstream/wsstream"
	"k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/registry/rest"
	translator "k8s.io/apiserver/pkg/util/proxy"

	"github.com/svcplane/svcplane/internal/kubeletclient"
)

// upgradeableMethods are the methods of exec, attach and port-forward.
var upgradeableMethods = []string{"GET", "POST"}

// StreamREST serves pods/exec, pods/attach and pods/portforward: the
// request is proxied to the kubelet of the pod's node with
// apimachinery's UpgradeAwareHandler, as kube-apiserver does. kubectl's
// WebSocket v5 exec and attach are proxied as they are to a node that
// declares ExtendWebSocketsToKubelet (svcplane's agents do, as 1.36
// kubelets), else translated to SPDY here, and its WebSocket-tunnelled
// port-forward likewise. A GET (WebSocket) upgrade must also be allowed
// to create the subresource.
type StreamREST struct {
	Pods       rest.Getter
	Kubelet    KubeletConnection
	Authorizer authorizer.Authorizer
	// Kind is "exec", "attach" or "portforward".
	Kind string
}

var _ rest.Connecter = &StreamREST{}

// New implements rest.Storage.
func (r *StreamREST) New() runtime.Object { return r.newOptions() }

// Destroy implements rest.Storage.
func (r *StreamREST) Destroy() {}

func (r *StreamREST) newOptions() runtime.Object {
	switch r.Kind {
	case "exec":
		return &corev1.PodExecOptions{}
	case "attach":
		return &corev1.PodAttachOptions{}
	}
	return &corev1.PodPortForwardOptions{}
}

// NewConnectOptions implements rest.Connecter.
func (r *StreamREST) NewConnectOptions() (runtime.Object, bool, string) {
	return r.newOptions(), false, ""
}

// ConnectMethods implements rest.Connecter.
func (r *StreamREST) ConnectMethods() []string { return upgradeableMethods }

// Connect returns the handler that proxies the upgrade to the kubelet.
func (r *StreamREST) Connect(ctx context.Context, name string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	if err := ensureAuthorizedForVerb(ctx, r.Authorizer, "create"); err != nil {
		return nil, err
	}
	var (
		location *url.URL
		info     *kubeletclient.ConnectionInfo
		err      error
		stream   translator.Options
	)
	switch o := opts.(type) {
	case *corev1.PodExecOptions:
		stream = translator.Options{Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr, Tty: o.TTY}
		location, info, err = ExecLocation(ctx, r.Pods, r.Kubelet, name, o)
	case *corev1.PodAttachOptions:
		stream = translator.Options{Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr, Tty: o.TTY}
		location, info, err = AttachLocation(ctx, r.Pods, r.Kubelet, name, o)
	case *corev1.PodPortForwardOptions:
		location, info, err = PortForwardLocation(ctx, r.Pods, r.Kubelet, name, o)
	default:
		return nil, fmt.Errorf("invalid options object: %#v", opts)
	}
	if err != nil {
		return nil, err
	}
	t := info.Transport
	var handler http.Handler = proxy.NewUpgradeAwareHandler(location, t, false, true, proxy.NewErrorResponder(responder))
	if info.SupportsWebSockets() {
		// The kubelet serves kubectl's WebSocket protocols itself.
		return handler, nil
	}
	if r.Kind == "portforward" {
		return translator.NewTranslatingHandler(handler, translator.NewTunnelingHandler(handler), wsstream.IsWebSocketRequestWithTunnelingProtocol), nil
	}
	return translator.NewTranslatingHandler(handler, translator.NewStreamTranslatorHandler(location, t, 0, stream), wsstream.IsWebSocketRequestWithStreamCloseProtocol), nil
}
