package pod

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/apiserver/pkg/registry/rest"
)

// ProxyREST serves pods/proxy as kube-apiserver: requests to a port of the
// pod's IP ("<name>", "<name>:<port>", "<scheme>:<name>:<port>"; without a
// port, the first declared container port), straight from the API server
// (not through the kubelet), with Transport.
type ProxyREST struct {
	Pods      rest.Getter
	Transport http.RoundTripper
}

var _ rest.Connecter = &ProxyREST{}

var proxyMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}

// New implements rest.Storage.
func (r *ProxyREST) New() runtime.Object { return &corev1.PodProxyOptions{} }

// Destroy implements rest.Storage.
func (r *ProxyREST) Destroy() {}

// ConnectMethods implements rest.Connecter.
func (r *ProxyREST) ConnectMethods() []string { return proxyMethods }

// NewConnectOptions implements rest.Connecter: the rest of the URL is the
// path in the pod.
func (r *ProxyREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &corev1.PodProxyOptions{}, true, "path"
}

// Connect returns the proxy to the pod.
func (r *ProxyREST) Connect(ctx context.Context, id string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	o, ok := opts.(*corev1.PodProxyOptions)
	if !ok {
		return nil, fmt.Errorf("invalid options object: %#v", opts)
	}
	location, err := r.location(ctx, id)
	if err != nil {
		return nil, err
	}
	location.Path = utilnet.JoinPreservingTrailingSlash(location.Path, o.Path)
	return proxy.NewUpgradeAwareHandler(location, r.Transport, true, false, proxy.NewErrorResponder(responder)), nil
}

// location is upstream's pod ResourceLocation: the pod's IP (global
// unicast only) and the given port, or its first container port.
func (r *ProxyREST) location(ctx context.Context, id string) (*url.URL, error) {
	scheme, name, port, valid := utilnet.SplitSchemeNamePort(id)
	if !valid {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid pod request %q", id))
	}
	obj, err := r.Pods.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, fmt.Errorf("unexpected object type: %T", obj)
	}
	if port == "" {
		for _, c := range pod.Spec.Containers {
			if len(c.Ports) > 0 {
				port = strconv.Itoa(int(c.Ports[0].ContainerPort))
				break
			}
		}
	}
	podIP := pod.Status.PodIP
	if len(pod.Status.PodIPs) > 0 {
		podIP = pod.Status.PodIPs[0].IP
	}
	if ip := net.ParseIP(podIP); ip == nil || !ip.IsGlobalUnicast() {
		return nil, apierrors.NewBadRequest("address not allowed")
	}
	loc := &url.URL{Scheme: scheme, Host: podIP}
	if port != "" {
		loc.Host = net.JoinHostPort(podIP, port)
	}
	return loc, nil
}
