package integration

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestEndpointSliceController: pods matching a Service's selector, given IPs
// and readiness (as a node agent would), show up in its EndpointSlice with
// upstream's labels, owner and conditions; deleting the Service removes it.
func TestEndpointSliceController(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	// Pods on a node that does not exist are skipped, as upstream.
	if _, err := c.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{}); err != nil {
		get(c.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1",
			Labels: map[string]string{corev1.LabelTopologyZone: "z1"}}}, metav1.CreateOptions{}))(t)
	}
	svc := get(c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}, metav1.CreateOptions{}))(t)
	for i, ready := range []bool{true, false} {
		pod := get(c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Labels: map[string]string{"app": "web"}},
			Spec:       corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{}))(t)
		status := corev1.ConditionFalse
		if ready {
			status = corev1.ConditionTrue
		}
		// The status keeps what the server set (qosClass may not change).
		ip := fmt.Sprintf("10.244.0.%d", 10+i)
		pod.Status.Phase, pod.Status.PodIP, pod.Status.PodIPs = corev1.PodRunning, ip, []corev1.PodIP{{IP: ip}}
		pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
		get(c.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}))(t)
	}
	sel := metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=web"}
	var slice discoveryv1.EndpointSlice
	eventually(t, "an EndpointSlice with both pods", func() bool {
		list := get(c.DiscoveryV1().EndpointSlices(ns).List(ctx, sel))(t)
		if len(list.Items) != 1 || len(list.Items[0].Endpoints) != 2 {
			return false
		}
		slice = list.Items[0]
		return true
	})
	if slice.Labels[discoveryv1.LabelManagedBy] != "endpointslice-controller.k8s.io" || slice.AddressType != discoveryv1.AddressTypeIPv4 ||
		len(slice.OwnerReferences) != 1 || slice.OwnerReferences[0].UID != svc.UID || *slice.Ports[0].Port != 80 {
		t.Fatalf("slice: %+v", slice)
	}
	var ready []string
	for _, ep := range slice.Endpoints {
		if *ep.Conditions.Ready {
			ready = append(ready, ep.Addresses[0])
		}
		if *ep.NodeName != "n1" || ep.Zone == nil || *ep.Zone != "z1" || ep.TargetRef == nil || ep.TargetRef.Kind != "Pod" {
			t.Fatalf("endpoint: %+v", ep)
		}
	}
	if !slices.Equal(ready, []string{"10.244.0.10"}) {
		t.Fatalf("ready endpoints %v, want only 10.244.0.10", ready)
	}
	// The Endpoints controller writes the same pods into core/v1 Endpoints.
	eventually(t, "Endpoints web", func() bool {
		ep, err := c.CoreV1().Endpoints(ns).Get(ctx, "web", metav1.GetOptions{})
		return err == nil && len(ep.Subsets) == 1 && len(ep.Subsets[0].Addresses) == 1 &&
			ep.Subsets[0].Addresses[0].IP == "10.244.0.10" && len(ep.Subsets[0].NotReadyAddresses) == 1
	})
	noErr(t, c.CoreV1().Services(ns).Delete(ctx, "web", metav1.DeleteOptions{}))
	eventually(t, "the EndpointSlice and Endpoints to go with their Service", func() bool {
		_, err := c.CoreV1().Endpoints(ns).Get(ctx, "web", metav1.GetOptions{})
		return len(get(c.DiscoveryV1().EndpointSlices(ns).List(ctx, sel))(t).Items) == 0 && err != nil
	})
}

// TestNodeIPAM: new Nodes get distinct /24s of --cluster-cidr.
func TestNodeIPAM(t *testing.T) {
	skipShort(t)
	c := server.Client
	got := map[string]string{}
	for _, n := range []string{"ipam-1", "ipam-2"} {
		get(c.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{}))(t)
	}
	eventually(t, "pod CIDRs on both nodes", func() bool {
		for _, n := range []string{"ipam-1", "ipam-2"} {
			node := get(c.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{}))(t)
			if node.Spec.PodCIDR == "" {
				return false
			}
			got[n] = node.Spec.PodCIDR
		}
		return true
	})
	if got["ipam-1"] == got["ipam-2"] || !strings.HasPrefix(got["ipam-1"], "10.244.") || !strings.HasSuffix(got["ipam-1"], "/24") {
		t.Fatalf("pod CIDRs %v", got)
	}
}

// TestEndpointSliceMirroring: a selector-less Service's hand-written
// Endpoints are mirrored into an EndpointSlice, follow its changes, and go
// with it.
func TestEndpointSliceMirroring(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	get(c.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "ext"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "db", Port: 5432}}}}, metav1.CreateOptions{}))(t)
	ep := get(c.CoreV1().Endpoints(ns).Create(ctx, &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: "ext"},
		Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: "10.9.9.9"}},
			Ports: []corev1.EndpointPort{{Name: "db", Port: 5432, Protocol: corev1.ProtocolTCP}}}}}, metav1.CreateOptions{}))(t)
	sel := metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=ext,endpointslice.kubernetes.io/managed-by=endpointslicemirroring-controller.k8s.io"}
	addrs := func() []string {
		var out []string
		for _, s := range get(c.DiscoveryV1().EndpointSlices(ns).List(ctx, sel))(t).Items {
			for _, e := range s.Endpoints {
				out = append(out, e.Addresses...)
			}
		}
		slices.Sort(out)
		return out
	}
	eventually(t, "the mirrored slice", func() bool { return slices.Equal(addrs(), []string{"10.9.9.9"}) })
	ep.Subsets[0].Addresses = append(ep.Subsets[0].Addresses, corev1.EndpointAddress{IP: "10.9.9.10"})
	get(c.CoreV1().Endpoints(ns).Update(ctx, ep, metav1.UpdateOptions{}))(t)
	eventually(t, "the mirrored slice to follow", func() bool { return slices.Equal(addrs(), []string{"10.9.9.10", "10.9.9.9"}) })
	noErr(t, c.CoreV1().Endpoints(ns).Delete(ctx, "ext", metav1.DeleteOptions{}))
	eventually(t, "the mirrored slice to go", func() bool { return len(addrs()) == 0 })
}
