package reconcilers

import (
	"context"
	"net"
	"reflect"
	"sort"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Namespace and Name of the Service whose endpoints are kept.
const (
	Namespace = metav1.NamespaceDefault
	Name      = "kubernetes"
)

// adapter writes the Endpoints object and mirrors it into the EndpointSlice
// of the same name (the mirroring controller is told to skip it).
type adapter struct {
	client kubernetes.Interface
}

// get returns the Endpoints object and whether it exists (a new, empty one
// when it does not).
func (a adapter) get(ctx context.Context) (*corev1.Endpoints, bool, error) {
	e, err := a.client.CoreV1().Endpoints(Namespace).Get(ctx, Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: Name}}, false, nil
	}
	return e, err == nil, err
}

// write stores e (create unless exists, else update) and then its
// EndpointSlice.
func (a adapter) write(ctx context.Context, e *corev1.Endpoints, exists bool) error {
	if e.Labels == nil {
		e.Labels = map[string]string{}
	}
	e.Labels[discoveryv1.LabelSkipMirror] = "true"
	var err error
	if !exists {
		_, err = a.client.CoreV1().Endpoints(Namespace).Create(ctx, e, metav1.CreateOptions{})
	} else {
		_, err = a.client.CoreV1().Endpoints(Namespace).Update(ctx, e, metav1.UpdateOptions{})
	}
	if err != nil {
		return err
	}
	return a.ensureSlice(ctx, e)
}

// ensureSlice makes the EndpointSlice match e.
func (a adapter) ensureSlice(ctx context.Context, e *corev1.Endpoints) error {
	want := sliceFor(e)
	api := a.client.DiscoveryV1().EndpointSlices(Namespace)
	cur, err := api.Get(ctx, Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		_, err = api.Create(ctx, want, metav1.CreateOptions{})
		return err
	}
	if err != nil {
		return err
	}
	if cur.AddressType != want.AddressType {
		if err := api.Delete(ctx, Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		_, err = api.Create(ctx, want, metav1.CreateOptions{})
		return err
	}
	if reflect.DeepEqual(cur.Endpoints, want.Endpoints) && reflect.DeepEqual(cur.Ports, want.Ports) &&
		reflect.DeepEqual(cur.Labels, want.Labels) {
		return nil
	}
	cur.Endpoints, cur.Ports, cur.Labels = want.Endpoints, want.Ports, want.Labels
	_, err = api.Update(ctx, cur, metav1.UpdateOptions{})
	return err
}

// sliceFor returns the EndpointSlice kube-apiserver derives from e.
func sliceFor(e *corev1.Endpoints) *discoveryv1.EndpointSlice {
	s := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: Name,
			Labels: map[string]string{discoveryv1.LabelServiceName: Name}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{},
	}
	ready := true
	if len(e.Subsets) > 0 {
		sub := e.Subsets[0]
		for _, addr := range sub.Addresses {
			if ip := net.ParseIP(addr.IP); ip != nil && ip.To4() == nil {
				s.AddressType = discoveryv1.AddressTypeIPv6
			}
			s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{
				Addresses:  []string{addr.IP},
				Conditions: discoveryv1.EndpointConditions{Ready: &ready},
			})
		}
		for _, p := range sub.Ports {
			name, port, proto := p.Name, p.Port, p.Protocol
			s.Ports = append(s.Ports, discoveryv1.EndpointPort{Name: &name, Port: &port, Protocol: &proto})
		}
	}
	return s
}

// subsetFor returns the single subset listing ips with ports.
func subsetFor(ips []string, ports []corev1.EndpointPort) []corev1.EndpointSubset {
	if len(ips) == 0 {
		return nil
	}
	sort.Strings(ips)
	addrs := make([]corev1.EndpointAddress, len(ips))
	for i, ip := range ips {
		addrs[i] = corev1.EndpointAddress{IP: ip}
	}
	return []corev1.EndpointSubset{{Addresses: addrs, Ports: ports}}
}

// AddressesOf returns the IPs e lists (sorted), when e has the expected single
// subset shape.
func AddressesOf(e *corev1.Endpoints) []string {
	var out []string
	for _, s := range e.Subsets {
		for _, a := range s.Addresses {
			out = append(out, a.IP)
		}
	}
	sort.Strings(out)
	return out
}
