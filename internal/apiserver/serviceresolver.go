package apiserver

import (
	"net/url"

	"k8s.io/apiserver/pkg/util/proxy"
	"k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/informers"
	listersv1 "k8s.io/client-go/listers/core/v1"
)

// clusterIPResolver sends a webhook's calls to its Service's ClusterIP
// (kube-aggregator's cluster routing).
type clusterIPResolver struct{ services listersv1.ServiceLister }

func (r clusterIPResolver) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	return proxy.ResolveCluster(r.services, namespace, name, port)
}

// endpointResolver sends them to a ready endpoint of the Service
// (kube-aggregator's endpoint routing).
type endpointResolver struct {
	services listersv1.ServiceLister
	slices   proxy.EndpointSliceGetter
}

func (r endpointResolver) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	return proxy.ResolveEndpoint(r.services, r.slices, namespace, name, port)
}

func newEndpointSliceGetter(f informers.SharedInformerFactory) (proxy.EndpointSliceGetter, error) {
	return proxy.NewEndpointSliceIndexerGetter(f.Discovery().V1().EndpointSlices())
}

// loopbackResolver resolves default/kubernetes:443 to this server.
type loopbackResolver struct {
	delegate webhook.ServiceResolver
	host     *url.URL
}

func (r loopbackResolver) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	if namespace == "default" && name == "kubernetes" && port == 443 {
		return r.host, nil
	}
	return r.delegate.ResolveEndpoint(namespace, name, port)
}
