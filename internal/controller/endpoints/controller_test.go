package endpoints

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func pod(i int, ready bool) *corev1.Pod {
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	ip := fmt.Sprintf("10.%d.%d.%d", i/65536, i/256%256, i%256)
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: fmt.Sprintf("p%d", i)},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}},
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}}}
}

func withIPs(p *corev1.Pod, ips ...string) *corev1.Pod {
	p.Status.PodIP, p.Status.PodIPs = "", nil
	if len(ips) > 0 {
		p.Status.PodIP = ips[0]
	}
	for _, ip := range ips {
		p.Status.PodIPs = append(p.Status.PodIPs, corev1.PodIP{IP: ip})
	}
	return p
}

// TestAddressOfTheServicesFamily: as upstream's
// podToEndpointAddressForService, an address is the pod's first IP of
// the Service's (primary) family, in canonical form, and a pod without one
// is left out.
func TestAddressOfTheServicesFamily(t *testing.T) {
	v4, v6 := corev1.IPv4Protocol, corev1.IPv6Protocol
	cases := []struct {
		name      string
		families  []corev1.IPFamily
		clusterIP string
		podIPs    []string
		want      string
	}{
		{"IPv4 Service, dual-stack pod", []corev1.IPFamily{v4}, "10.96.0.1", []string{"10.1.0.5", "fd00::5"}, "10.1.0.5"},
		{"IPv6 Service, dual-stack pod", []corev1.IPFamily{v6}, "fd00:96::1", []string{"10.1.0.5", "fd00::5"}, "fd00::5"},
		{"IPv6 Service, IPv6 first", []corev1.IPFamily{v6}, "", []string{"fd00::5", "10.1.0.5"}, "fd00::5"},
		{"dual-stack Service IPv6 primary", []corev1.IPFamily{v6, v4}, "fd00:96::1", []string{"10.1.0.5", "fd00::5"}, "fd00::5"},
		{"dual-stack Service IPv4 primary", []corev1.IPFamily{v4, v6}, "10.96.0.1", []string{"fd00::5", "10.1.0.5"}, "10.1.0.5"},
		{"IPv6 Service, IPv4-only pod", []corev1.IPFamily{v6}, "fd00:96::1", []string{"10.1.0.5"}, ""},
		{"IPv4 Service, IPv6-only pod", []corev1.IPFamily{v4}, "10.96.0.1", []string{"fd00::5"}, ""},
		{"no families: from the ClusterIP", nil, "fd00:96::1", []string{"10.1.0.5", "fd00::5"}, "fd00::5"},
		{"headless, no families: from the pod IP", nil, "None", []string{"fd00::5", "10.1.0.5"}, "fd00::5"},
		{"nothing says: IPv4", nil, "", []string{"10.1.0.5", "fd00::5"}, "10.1.0.5"},
		{"canonical form", []corev1.IPFamily{v6}, "", []string{"FD00:0:0::0005"}, "fd00::5"},
		{"leading zeros parsed sloppily", []corev1.IPFamily{v4}, "", []string{"010.001.000.005"}, "10.1.0.5"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "s"},
				Spec: corev1.ServiceSpec{IPFamilies: tc.families, ClusterIP: tc.clusterIP,
					Ports: []corev1.ServicePort{{Name: "web", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8080)}}}}
			subsets, _ := subsetsFor(svc, []*corev1.Pod{withIPs(pod(1, true), tc.podIPs...)})
			got := ""
			if len(subsets) == 1 && len(subsets[0].Addresses) == 1 {
				got = subsets[0].Addresses[0].IP
			}
			if got != tc.want || (tc.want == "" && len(subsets) != 0) {
				t.Errorf("address %q (subsets %+v), want %q", got, subsets, tc.want)
			}
		})
	}
}

// TestPodsInEndpoints: the published ShouldPodBeInEndpoints and
// ShouldSetHostname decide, as upstream.
func TestPodsInEndpoints(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "s"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "web", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromInt32(8080)}}}}
	noIP := withIPs(pod(1, true))
	failed := pod(2, true)
	failed.Status.Phase = corev1.PodFailed
	deleting := pod(3, true)
	deleting.DeletionTimestamp = &metav1.Time{}
	named := pod(4, true)
	named.Spec.Hostname, named.Spec.Subdomain = "web-0", "s"
	subsets, _ := subsetsFor(svc, []*corev1.Pod{noIP, failed, deleting, named})
	if len(subsets) != 1 || len(subsets[0].Addresses) != 1 || subsets[0].Addresses[0].Hostname != "web-0" {
		t.Fatalf("subsets %+v", subsets)
	}
	svc.Spec.PublishNotReadyAddresses = true // terminating pods too
	if subsets, _ := subsetsFor(svc, []*corev1.Pod{deleting}); len(subsets) != 1 {
		t.Fatalf("publishNotReadyAddresses: %+v", subsets)
	}
}

func TestSubsets(t *testing.T) {
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "web", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString("http")}}}}
	subsets, truncated := subsetsFor(svc, []*corev1.Pod{pod(1, true), pod(2, false)})
	if truncated || len(subsets) != 1 || len(subsets[0].Addresses) != 1 || len(subsets[0].NotReadyAddresses) != 1 ||
		subsets[0].Ports[0].Port != 8080 || subsets[0].Ports[0].Name != "web" {
		t.Fatalf("subsets: %+v", subsets)
	}
	var many []*corev1.Pod
	for i := 0; i < 1200; i++ {
		many = append(many, pod(i, i%2 == 0))
	}
	subsets, truncated = subsetsFor(svc, many)
	n := len(subsets[0].Addresses) + len(subsets[0].NotReadyAddresses)
	if !truncated || n != MaxCapacity || len(subsets[0].Addresses) != 600 {
		t.Fatalf("truncation: %v, %d addresses (%d ready)", truncated, n, len(subsets[0].Addresses))
	}
}
