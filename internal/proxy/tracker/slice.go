package tracker

import (
	"slices"
	"time"

	discovery "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/svcplane/svcplane/internal/proxy"
)

// Slice is an EndpointSlice as the proxy's informer keeps it: the
// informers' transform converts each EndpointSlice into one as it arrives,
// so the informer cache holds the converted endpoints, which the tracker
// then keeps as they are (one copy of every endpoint in the process, not
// a decoded EndpointSlice beside its conversion).
type Slice struct {
	// ObjectMeta holds only the name, namespace, UID and resourceVersion
	// (the cache's key and the informer's bookkeeping).
	metav1.ObjectMeta
	// Service is the kubernetes.io/service-name label ("" without it).
	Service string
	// Family is the address type's (0 for FQDN slices: the proxy
	// programs none).
	Family proxy.IPFamily
	// Endpoints per service port, converted as sliceEndpoints does.
	Endpoints map[proxy.ServicePortName][]proxy.Endpoint
	// TriggerTime is endpoints.kubernetes.io/last-change-trigger-time
	// (zero when absent or malformed).
	TriggerTime time.Time
}

// NewSlice converts an EndpointSlice for the proxy of node nodeName.
func NewSlice(es *discovery.EndpointSlice, nodeName string) *Slice {
	s := &Slice{
		ObjectMeta: metav1.ObjectMeta{
			Name: es.Name, Namespace: es.Namespace, UID: es.UID, ResourceVersion: es.ResourceVersion,
		},
		Service:     es.Labels[discovery.LabelServiceName],
		TriggerTime: lastChangeTriggerTime(es),
	}
	switch es.AddressType {
	case discovery.AddressTypeIPv4:
		s.Family = proxy.IPv4
	case discovery.AddressTypeIPv6:
		s.Family = proxy.IPv6
	}
	if s.Family != 0 {
		s.Endpoints, _ = sliceEndpoints(es, s.Family, nodeName)
	}
	return s
}

// GetObjectKind implements runtime.Object: a Slice has no kind of its own.
func (s *Slice) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject implements runtime.Object.
func (s *Slice) DeepCopyObject() runtime.Object {
	out := *s
	s.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if s.Endpoints != nil {
		out.Endpoints = make(map[proxy.ServicePortName][]proxy.Endpoint, len(s.Endpoints))
		for name, eps := range s.Endpoints {
			c := slices.Clone(eps)
			for i := range c {
				if h := c[i].Hints; h != nil {
					c[i].Hints = &proxy.EndpointHints{Zones: slices.Clone(h.Zones), Nodes: slices.Clone(h.Nodes)}
				}
			}
			out.Endpoints[name] = c
		}
	}
	return &out
}
