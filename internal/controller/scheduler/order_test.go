package scheduler

import (
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// scanPick is the placement rule as a plain scan of every node (what the
// scheduler did before nodeOrder): among the nodes that fit, the one with
// the fewest pods, ties by name; when none fits, every node's reasons.
func scanPick(pod *corev1.Pod, nodes []*corev1.Node, used func(string) usage) (string, map[string]int) {
	req := requestsOf(pod, false)
	affinity := nodeaffinity.GetRequiredNodeAffinity(pod)
	best, bestCount := "", 0
	reasons := map[string]int{}
	for _, n := range nodes {
		if r := unfit(pod, affinity, factsOf(n)); r != "" {
			reasons[r]++
			continue
		}
		u := used(n.Name)
		if rs := insufficient(factsOf(n), req, u); len(rs) > 0 {
			for _, r := range rs {
				reasons[r]++
			}
			continue
		}
		if best == "" || u.pods < bestCount || (u.pods == bestCount && n.Name < best) {
			best, bestCount = n.Name, u.pods
		}
	}
	return best, reasons
}

func randomNode(r *rand.Rand, name string) *corev1.Node {
	n := readyNode(name, map[string]string{"zone": []string{"a", "b", "c"}[r.Intn(3)]})
	if r.Intn(10) == 0 {
		n.Status.Conditions[0].Status = corev1.ConditionFalse
	}
	if r.Intn(10) == 0 {
		n.Spec.Unschedulable = true
	}
	if r.Intn(5) == 0 {
		n.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}}
	}
	n.Status.Allocatable = corev1.ResourceList{
		corev1.ResourcePods: *resource.NewQuantity(int64(1+r.Intn(6)), resource.DecimalSI),
		corev1.ResourceCPU:  *resource.NewMilliQuantity(int64(1000*(1+r.Intn(4))), resource.DecimalSI),
	}
	return n
}

func randomPod(r *rand.Rand) *corev1.Pod {
	p := podRequesting(fmt.Sprintf("%dm", 250*r.Intn(5)), "")
	if r.Intn(3) == 0 {
		p.Spec.NodeSelector = map[string]string{"zone": []string{"a", "b", "c"}[r.Intn(3)]}
	}
	if r.Intn(3) == 0 {
		p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db", Effect: corev1.TaintEffectNoSchedule}}
	}
	return p
}

// TestPlaceMatchesScan: after every change the informers and binds make
// (nodes added, changed and deleted; pods assumed, taken back, observed
// on a node, moved and deleted), place chooses the node a scan of every
// node chooses, and gives the same reasons when none fits.
func TestPlaceMatchesScan(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewSource(seed))
		c := newPodCache()
		nodes := map[string]*corev1.Node{}
		nodeName := func() string { return fmt.Sprintf("n%02d", r.Intn(12)) }
		podKeyN := func() string { return fmt.Sprintf("ns/p%d", r.Intn(40)) }
		for step := 0; step < 400; step++ {
			switch op := r.Intn(8); op {
			case 0:
				n := randomNode(r, nodeName())
				nodes[n.Name] = n
				c.setNode(n)
			case 1:
				name := nodeName()
				delete(nodes, name)
				c.deleteNode(name)
			case 2:
				c.assume(podKeyN(), nodeName(), requestsOf(randomPod(r), false))
			case 3:
				c.unassume(podKeyN())
			case 4:
				p := randomPod(r)
				_, _ = fmt.Sscanf(podKeyN(), "ns/%s", &p.Name)
				p.Namespace = "ns"
				p.Spec.NodeName = nodeName()
				if r.Intn(6) == 0 {
					p.Status.Phase = corev1.PodSucceeded
				}
				c.observe(p)
			case 5:
				c.forget(podKeyN())
			default:
				pod := randomPod(r)
				var list []*corev1.Node
				for _, n := range nodes {
					list = append(list, n)
				}
				want, wantReasons := scanPick(pod, list, c.used)
				got, reasons, total := c.place(pod)
				if total != len(list) {
					t.Fatalf("seed %d step %d: %d nodes placed among, want %d", seed, step, total, len(list))
				}
				if got != want {
					t.Fatalf("seed %d step %d: placed on %q, a scan picks %q", seed, step, got, want)
				}
				if got == "" && len(list) > 0 && !reflect.DeepEqual(reasons, wantReasons) {
					t.Fatalf("seed %d step %d: reasons %v, a scan gives %v", seed, step, reasons, wantReasons)
				}
			}
		}
	}
}

// TestPlaceFollowsCountsAndNodeVersions: among 1,000 nodes the one left
// emptiest is chosen; a node's new version is taken (cordoned, it no
// longer fits) and a deleted node is gone.
func TestPlaceFollowsCountsAndNodeVersions(t *testing.T) {
	c := newPodCache()
	for i := range 1000 {
		c.setNode(readyNode(fmt.Sprintf("n%04d", i), nil))
	}
	for i := range 999 {
		c.assume(fmt.Sprintf("ns/p%d", i), fmt.Sprintf("n%04d", i), usage{pods: 1})
	}
	if got, _, _ := c.place(&corev1.Pod{}); got != "n0999" {
		t.Fatalf("placed on %q, want the one empty node n0999", got)
	}
	cordoned := readyNode("n0999", nil)
	cordoned.Spec.Unschedulable = true
	c.setNode(cordoned)
	if got, _, _ := c.place(&corev1.Pod{}); got != "n0000" {
		t.Fatalf("after cordoning n0999: placed on %q, want n0000", got)
	}
	c.deleteNode("n0000")
	c.unassume("ns/p1")
	if got, _, total := c.place(&corev1.Pod{}); got != "n0001" || total != 999 {
		t.Fatalf("after deleting n0000 and emptying n0001: placed on %q among %d, want n0001 among 999", got, total)
	}
}

// BenchmarkPlace1000Nodes: one placement among 1,000 nodes holding ~10
// pods each; the pod is then assumed there and the one placed 5,000
// placements before taken back, so the order moves as in a rollout and
// the cluster stays at that size.
func BenchmarkPlace1000Nodes(b *testing.B) {
	c := newPodCache()
	for i := range 1000 {
		n := fmt.Sprintf("n%04d", i)
		c.setNode(readyNode(n, nil))
		for j := range 5 {
			c.assume(fmt.Sprintf("ns/%s-%d", n, j), n, usage{pods: 1})
		}
	}
	pod := podRequesting("100m", "")
	const keep = 5000
	keys := make([]string, keep)
	for i := range keys {
		keys[i] = fmt.Sprintf("ns/x%d", i)
	}
	for i := 0; b.Loop(); i++ {
		node, _, _ := c.place(pod)
		if node == "" {
			b.Fatal("no node fits")
		}
		k := keys[i%keep]
		c.unassume(k)
		c.assume(k, node, usage{pods: 1, milliCPU: 100})
	}
}
