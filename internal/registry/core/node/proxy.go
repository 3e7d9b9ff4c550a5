package node

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/svcplane/svcplane/internal/kubeletclient"
)

// KubeletConnection finds how to reach a node's kubelet
// (kubeletclient.Getter).
type KubeletConnection interface {
	GetConnectionInfo(ctx context.Context, node string) (*kubeletclient.ConnectionInfo, error)
}

// ProxyREST serves nodes/proxy: requests to the node's kubelet API
// (`kubectl get --raw /api/v1/nodes/<name>/proxy/pods`), or to another
// port of the node ("<name>:<port>", "<scheme>:<name>:<port>") with
// ProxyTransport, as kube-apiserver.
type ProxyREST struct {
	Kubelet        KubeletConnection
	ProxyTransport http.RoundTripper
	// Resolve looks a host up (nil: the default resolver).
	Resolve func(ctx context.Context, host string) ([]net.IPAddr, error)
}

var _ rest.Connecter = &ProxyREST{}

var proxyMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

// New implements rest.Storage.
func (r *ProxyREST) New() runtime.Object { return &corev1.NodeProxyOptions{} }

// Destroy implements rest.Storage.
func (r *ProxyREST) Destroy() {}

// ConnectMethods implements rest.Connecter.
func (r *ProxyREST) ConnectMethods() []string { return proxyMethods }

// NewConnectOptions implements rest.Connecter: the rest of the URL is the
// path on the node.
func (r *ProxyREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &corev1.NodeProxyOptions{}, true, "path"
}

// Connect returns the proxy to the node.
func (r *ProxyREST) Connect(ctx context.Context, id string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	o, ok := opts.(*corev1.NodeProxyOptions)
	if !ok {
		return nil, fmt.Errorf("invalid options object: %#v", opts)
	}
	location, transport, err := r.location(ctx, id)
	if err != nil {
		return nil, err
	}
	location.Path = utilnet.JoinPreservingTrailingSlash(location.Path, o.Path)
	return proxy.NewUpgradeAwareHandler(location, transport, true, false, proxy.NewErrorResponder(responder)), nil
}

// location is upstream's node ResourceLocation: only hosts that resolve to
// global unicast addresses are proxied to.
func (r *ProxyREST) location(ctx context.Context, id string) (*url.URL, http.RoundTripper, error) {
	scheme, name, port, valid := utilnet.SplitSchemeNamePort(id)
	if !valid {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("invalid node request %q", id))
	}
	info, err := r.Kubelet.GetConnectionInfo(ctx, name)
	if err != nil {
		return nil, nil, err
	}
	if err := r.proxyable(ctx, info.Hostname); err != nil {
		return nil, nil, apierrors.NewBadRequest(err.Error())
	}
	if port == "" || port == info.Port {
		return &url.URL{Scheme: info.Scheme, Host: net.JoinHostPort(info.Hostname, info.Port)}, info.Transport, nil
	}
	return &url.URL{Scheme: scheme, Host: net.JoinHostPort(info.Hostname, port)}, r.ProxyTransport, nil
}

func (r *ProxyREST) proxyable(ctx context.Context, host string) error {
	resolve := r.Resolve
	if resolve == nil {
		resolve = net.DefaultResolver.LookupIPAddr
	}
	addrs, err := resolve(ctx, host)
	if err != nil {
		return err
	}
	if len(addrs) == 0 {
		return fmt.Errorf("no addresses for hostname")
	}
	for _, a := range addrs {
		if !a.IP.IsGlobalUnicast() {
			return fmt.Errorf("address not allowed")
		}
	}
	return nil
}
