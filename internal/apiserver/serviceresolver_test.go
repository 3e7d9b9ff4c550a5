package apiserver

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

// TestServiceResolver: a webhook's service reference resolves to the
// ClusterIP and service port, or with endpoint routing to a ready
// endpoint's address and port; default/kubernetes:443 is the loopback
// host either way.
func TestServiceResolver(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "hook"}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.0.0.7",
		Ports: []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromInt32(8443)}}}}
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "ns", Name: "hook-1", Labels: map[string]string{discoveryv1.LabelServiceName: "hook"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.0.9"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}},
			{Addresses: []string{"10.244.0.8"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(false)}}},
		Ports: []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To[int32](8443)}},
	}
	f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	_ = f.Core().V1().Services().Informer().GetStore().Add(svc)
	for _, c := range []struct {
		endpoints bool
		want      string
	}{{false, "https://10.0.0.7:443"}, {true, "https://10.244.0.9:8443"}} {
		r, err := newServiceResolver(f, "https://127.0.0.1:6443", c.endpoints)
		if err != nil {
			t.Fatal(err)
		}
		if c.endpoints {
			_ = f.Discovery().V1().EndpointSlices().Informer().GetIndexer().Add(slice)
		}
		u, err := r.ResolveEndpoint("ns", "hook", 443)
		if err != nil || u.String() != c.want {
			t.Errorf("endpoints=%v: %v %v, want %s", c.endpoints, u, err, c.want)
		}
		if _, err := r.ResolveEndpoint("ns", "hook", 80); err == nil {
			t.Errorf("endpoints=%v: a port the Service does not have resolved", c.endpoints)
		}
		if u, err := r.ResolveEndpoint("default", "kubernetes", 443); err != nil || u.String() != "https://127.0.0.1:6443" {
			t.Errorf("endpoints=%v: kubernetes.default:443 → %v %v, want the loopback host", c.endpoints, u, err)
		}
	}
}
