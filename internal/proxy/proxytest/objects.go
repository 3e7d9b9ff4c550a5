package proxytest

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/tracker"
)

// The node every scenario runs on and a second node for remote endpoints.
const (
	NodeName   = "node-a"
	NodeIP     = "192.168.0.2"
	OtherNode  = "node-b"
	NodeZone   = "zone-a"
	PodCIDR    = "10.244.0.0/16"
	OutsideIP  = "203.0.113.9"
	LocalPodIP = "10.244.1.99"
)

// Svc builds a ClusterIP Service "ns/name" with one port "p" (TCP port
// → targetPort); mutators adjust it.
func Svc(name, clusterIP string, port int32, mutate ...func(*v1.Service)) *v1.Service {
	s := &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: v1.ServiceSpec{Type: v1.ServiceTypeClusterIP, ClusterIP: clusterIP, ClusterIPs: []string{clusterIP},
			Ports: []v1.ServicePort{{Name: "p", Port: port, Protocol: v1.ProtocolTCP}}},
	}
	for _, m := range mutate {
		m(s)
	}
	return s
}

// NodePort makes a Service type NodePort with the given node port.
func NodePort(np int32) func(*v1.Service) {
	return func(s *v1.Service) { s.Spec.Type = v1.ServiceTypeNodePort; s.Spec.Ports[0].NodePort = np }
}

// Slice builds an EndpointSlice for Service name with target port; each
// endpoint is "ip@node[,flags]" with flags r (ready, default), t
// (terminating+serving), n (not ready), z=<zone> (hint).
func Slice(name string, port int32, endpoints ...string) *discovery.EndpointSlice {
	s := &discovery.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "ns", Name: name + "-1", Labels: map[string]string{discovery.LabelServiceName: name}},
		AddressType: discovery.AddressTypeIPv4,
		Ports:       []discovery.EndpointPort{{Name: ptr.To("p"), Port: ptr.To(port), Protocol: ptr.To(v1.ProtocolTCP)}},
	}
	for _, spec := range endpoints {
		parts := strings.Split(spec, ",")
		ipNode := strings.SplitN(parts[0], "@", 2)
		e := discovery.Endpoint{Addresses: []string{ipNode[0]}, NodeName: ptr.To(ipNode[1])}
		for _, f := range parts[1:] {
			switch {
			case f == "t":
				e.Conditions = discovery.EndpointConditions{Ready: ptr.To(false), Serving: ptr.To(true), Terminating: ptr.To(true)}
			case f == "n":
				e.Conditions = discovery.EndpointConditions{Ready: ptr.To(false), Serving: ptr.To(false)}
			case strings.HasPrefix(f, "z="):
				e.Hints = &discovery.EndpointHints{ForZones: []discovery.ForZone{{Name: f[2:]}}}
			}
		}
		s.Endpoints = append(s.Endpoints, e)
	}
	return s
}

// Node is the scenarios' own node.
func Node() *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: NodeName, Labels: map[string]string{proxy.LabelTopologyZone: NodeZone}},
		Status: v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: NodeIP}}}}
}

// Snapshot converts objects through the tracker, as the proxy would.
func Snapshot(family proxy.IPFamily, objs ...runtime.Object) *proxy.Snapshot {
	tr := tracker.New(family, NodeName, nil)
	tr.OnNodeUpdate(Node())
	for _, o := range objs {
		switch o := o.(type) {
		case *v1.Service:
			tr.OnServiceUpdate(types.NamespacedName{Namespace: o.Namespace, Name: o.Name}, o)
		case *discovery.EndpointSlice:
			tr.OnEndpointSliceUpdate(o, false)
		case *v1.Node:
			tr.OnNodeUpdate(o)
		}
	}
	return tr.Snapshot()
}
