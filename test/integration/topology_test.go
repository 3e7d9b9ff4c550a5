package integration

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/test/integration/framework"
)

// TestTopologyHints runs on its own server (the zones of other tests' nodes
// would change the hints): three Ready nodes with equal CPU in zones a, b, c
// and two ready pods in each. topology-mode Auto gives every endpoint a zone
// hint (upstream's allocatable-CPU heuristic), trafficDistribution
// PreferClose its own zone, PreferSameNode its node; a Service with fewer
// endpoints than zones gets none (the insufficient-endpoints safeguard).
func TestTopologyHints(t *testing.T) {
	skipShort(t)
	s, err := framework.StartWith("", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	c := s.Client
	ns := newNamespace(t, c)
	zones := []string{"a", "b", "c"}
	for _, z := range zones {
		readyNode(t, c, "node-"+z, z)
		for i := 0; i < 2; i++ {
			readyPod(t, c, ns, fmt.Sprintf("web-%s-%d", z, i), "node-"+z, map[string]string{"app": "web"})
		}
	}
	readyPod(t, c, ns, "solo", "node-a", map[string]string{"app": "solo"})
	service := func(name, app string, mut func(*corev1.Service)) {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": app}, Ports: []corev1.ServicePort{{Port: 80}}}}
		mut(svc)
		get(c.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}))(t)
	}
	auto := func(s *corev1.Service) { s.Annotations = map[string]string{corev1.AnnotationTopologyMode: "Auto"} }
	service("auto", "web", auto)
	service("close", "web", func(s *corev1.Service) {
		s.Spec.TrafficDistribution = ptr.To(corev1.ServiceTrafficDistributionPreferClose)
	})
	service("samenode", "web", func(s *corev1.Service) {
		s.Spec.TrafficDistribution = ptr.To(corev1.ServiceTrafficDistributionPreferSameNode)
	})
	service("solo", "solo", auto)

	endpoints := func(svc string, n int) []discoveryv1.Endpoint {
		var eps []discoveryv1.Endpoint
		eventually(t, fmt.Sprintf("%d endpoints of %s", n, svc), func() bool {
			list := get(c.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + svc}))(t)
			eps = nil
			for _, sl := range list.Items {
				eps = append(eps, sl.Endpoints...)
			}
			return len(eps) == n && (n == 1 || eps[0].Hints != nil)
		})
		return eps
	}
	perZone := map[string]int{}
	for _, ep := range endpoints("auto", 6) {
		if ep.Hints == nil || len(ep.Hints.ForZones) != 1 {
			t.Fatalf("auto: endpoint %s hints %+v, want one zone", ep.Addresses[0], ep.Hints)
		}
		perZone[ep.Hints.ForZones[0].Name]++
	}
	for _, z := range zones {
		if perZone[z] != 2 {
			t.Errorf("auto: zone %s got %d endpoints, want 2 (equal CPU): %v", z, perZone[z], perZone)
		}
	}
	for _, ep := range endpoints("close", 6) {
		if ep.Hints == nil || len(ep.Hints.ForZones) != 1 || ep.Hints.ForZones[0].Name != *ep.Zone {
			t.Errorf("PreferClose: endpoint in zone %s has hints %+v", *ep.Zone, ep.Hints)
		}
	}
	for _, ep := range endpoints("samenode", 6) {
		if ep.Hints == nil || len(ep.Hints.ForNodes) != 1 || ep.Hints.ForNodes[0].Name != *ep.NodeName {
			t.Errorf("PreferSameNode: endpoint on %s has hints %+v", *ep.NodeName, ep.Hints)
		}
	}
	if ep := endpoints("solo", 1)[0]; ep.Hints != nil {
		t.Errorf("one endpoint for three zones must get no hints, got %+v", ep.Hints)
	}
}

func readyNode(t *testing.T, c kubernetes.Interface, name, zone string) {
	t.Helper()
	get(c.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels: map[string]string{corev1.LabelTopologyZone: zone, corev1.LabelHostname: name}}}, metav1.CreateOptions{}))(t)
	cpu := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourcePods: resource.MustParse("110")}
	// The node IPAM controller writes the new Node too: retry on conflict.
	noErr(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		n.Status = corev1.NodeStatus{Capacity: cpu, Allocatable: cpu,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}}}
		_, err = c.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err
	}))
}

var podIPs = 0

func readyPod(t *testing.T, c kubernetes.Interface, ns, name, node string, labels map[string]string) {
	t.Helper()
	pod := get(c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{}))(t)
	podIPs++
	ip := fmt.Sprintf("10.250.%d.%d", podIPs/250, podIPs%250+1)
	// The status keeps what the server set (qosClass may not change).
	pod.Status.Phase, pod.Status.PodIP, pod.Status.PodIPs = corev1.PodRunning, ip, []corev1.PodIP{{IP: ip}}
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	get(c.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}))(t)
}
