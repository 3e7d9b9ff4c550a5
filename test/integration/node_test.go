package integration

import (
	"context"
	"net/netip"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/node/agent"
	"github.com/svcplane/svcplane/test/integration/framework"
)

// startAgent runs simulated nodes with the node simulator's credentials
// the server minted; the returned function stops the agent (as killing it
// would).
func startAgent(t *testing.T, s *framework.Server, names []string) (stop func()) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Options.NodeSimulatorKubeconfigPath())
	if err != nil {
		t.Fatal(err)
	}
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.QPS, cfg.Burst = -1, 0
	client := kubernetes.NewForConfigOrDie(cfg)
	a, err := agent.New(agent.Config{Client: client, Names: names, Zones: []string{"z1", "z2"},
		LeaseDuration: 4 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = a.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

func nodeReady(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

func isPodReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func hasTaint(n *corev1.Node, key string, effect corev1.TaintEffect) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == key && t.Effect == effect {
			return true
		}
	}
	return false
}

// TestSimulatedNodes runs three simulated nodes on their own server (short
// node-monitor grace period): a Deployment's pods get unique IPs from
// their node's pod CIDR and turn Ready; a deleted pod terminates, then
// goes; a stopped agent's nodes turn Unknown with the unreachable taints,
// which go again when it is back.
func TestSimulatedNodes(t *testing.T) {
	skipShort(t)
	s, err := framework.StartWith(t.TempDir(), func(o *framework.Options) {
		o.NodeMonitorGracePeriod, o.NodeMonitorPeriod = 3*time.Second, 200*time.Millisecond
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	c := s.Client
	names := []string{"sim-0", "sim-1", "sim-2"}
	stop := startAgent(t, s, names)
	nodesAre := func(what string, ok func(*corev1.Node) bool) {
		t.Helper()
		eventually(t, what, func() bool {
			for _, name := range names {
				n, err := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
				if err != nil || !ok(n) {
					return false
				}
			}
			return true
		})
	}
	nodesAre("three Ready nodes with pod CIDRs", func(n *corev1.Node) bool {
		return nodeReady(n) == corev1.ConditionTrue && len(n.Spec.PodCIDRs) > 0
	})

	ns := newNamespace(t, c)
	labels := map[string]string{"app": "web"}
	get(c.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](10), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}}}, metav1.CreateOptions{}))(t)
	var pods []corev1.Pod
	eventually(t, "10 Running and Ready pods", func() bool {
		pods = get(c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}))(t).Items
		ready := 0
		for i := range pods {
			if pods[i].Status.Phase == corev1.PodRunning && isPodReady(&pods[i]) {
				ready++
			}
		}
		return len(pods) == 10 && ready == 10
	})
	seen := map[string]string{}
	for _, p := range pods {
		n := get(c.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{}))(t)
		cidr := netip.MustParsePrefix(n.Spec.PodCIDRs[0])
		if !cidr.Contains(netip.MustParseAddr(p.Status.PodIP)) {
			t.Errorf("pod %s on %s: IP %s outside the node's pod CIDR %s", p.Name, n.Name, p.Status.PodIP, cidr)
		}
		if other, dup := seen[p.Status.PodIP]; dup {
			t.Errorf("pods %s and %s share IP %s", other, p.Name, p.Status.PodIP)
		}
		seen[p.Status.PodIP] = p.Name
		if p.Status.HostIP == "" || len(p.Status.ContainerStatuses) != 1 || !p.Status.ContainerStatuses[0].Ready {
			t.Errorf("pod %s status %+v", p.Name, p.Status)
		}
	}

	victim := pods[0]
	// A pause container ends at once; the delay keeps it terminating.
	_, err = c.CoreV1().Pods(ns).Patch(ctx, victim.Name, types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"svcplane.io/termination-delay":"2s"}}}`), metav1.PatchOptions{})
	noErr(t, err)
	noErr(t, c.CoreV1().Pods(ns).Delete(ctx, victim.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](2)}))
	p := get(c.CoreV1().Pods(ns).Get(ctx, victim.Name, metav1.GetOptions{}))(t)
	if p.DeletionTimestamp == nil || p.UID != victim.UID {
		t.Fatalf("deleted pod is not terminating: %+v", p.ObjectMeta)
	}
	eventually(t, "the terminating pod gone after its grace period", func() bool {
		p, err := c.CoreV1().Pods(ns).Get(ctx, victim.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err) || (err == nil && p.UID != victim.UID)
	})

	stop()
	nodesAre("nodes Unknown with the unreachable taints", func(n *corev1.Node) bool {
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && (cond.Reason != "NodeStatusUnknown" || cond.Message != "Kubelet stopped posting node status.") {
				return false
			}
		}
		return nodeReady(n) == corev1.ConditionUnknown &&
			hasTaint(n, corev1.TaintNodeUnreachable, corev1.TaintEffectNoSchedule) &&
			hasTaint(n, corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute)
	})

	stop = startAgent(t, s, names)
	defer stop()
	nodesAre("nodes Ready again without the taints", func(n *corev1.Node) bool {
		return nodeReady(n) == corev1.ConditionTrue && len(n.Spec.Taints) == 0
	})
	eventually(t, "pods Ready again with the same IPs", func() bool {
		ready := 0
		for _, p := range get(c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{}))(t).Items {
			if name, ok := seen[p.Status.PodIP]; ok && name == p.Name && isPodReady(&p) {
				ready++
			}
		}
		return ready == 9
	})
}

// TestPodIPsFromPodIP: a node simulator that posts only status.podIP
// (kwok) still gets status.podIPs, which the endpoint controllers read, as
// kube-apiserver's conversion fills it.
func TestPodIPsFromPodIP(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	p := get(c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{NodeName: "somewhere", Containers: []corev1.Container{{Name: "c", Image: "x"}}}}, metav1.CreateOptions{}))(t)
	p.Status.Phase, p.Status.PodIP, p.Status.HostIP = corev1.PodRunning, "10.244.7.9", "192.0.2.7"
	p = get(c.CoreV1().Pods(ns).UpdateStatus(ctx, p, metav1.UpdateOptions{}))(t)
	// kube-apiserver's v1 conversion fills podIPs from podIP; hostIPs has
	// no such conversion and stays as the client left it.
	if len(p.Status.PodIPs) != 1 || p.Status.PodIPs[0].IP != "10.244.7.9" || len(p.Status.HostIPs) != 0 || p.Status.HostIP != "192.0.2.7" {
		t.Fatalf("podIPs %v hostIP %q hostIPs %v", p.Status.PodIPs, p.Status.HostIP, p.Status.HostIPs)
	}
}
