package kubectl

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// readyLoop plays the node agent for ns until ctx ends: pods become Running
// and Ready with an IP.
func readyLoop(ctx context.Context, t *testing.T, ns string) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c := kubernetes.NewForConfigOrDie(cfg)
	go func() {
		for n := 0; ctx.Err() == nil; n++ {
			pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if err == nil {
				for i, p := range pods.Items {
					if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodRunning {
						continue
					}
					p.Status.Phase = corev1.PodRunning
					p.Status.PodIP = fmt.Sprintf("10.251.%d.%d", n%250, i%250+1)
					p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}
					_, _ = c.CoreV1().Pods(ns).UpdateStatus(ctx, &p, metav1.UpdateOptions{})
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
}

// TestRollout drives kubectl's rollout commands against the Deployment and
// ReplicaSet controllers (a helper marks pods ready until the node agent
// lands).
func TestRollout(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	k{t: t, bin: "kubectl"}.ok("create", "namespace", "rollout")
	c := k{t: t, bin: "kubectl", ns: "rollout"}
	readyLoop(ctx, t, "rollout")
	c.ok("create", "deployment", "web", "--image=nginx:1", "--replicas=3")
	contains(t, "rollout status", c.ok("rollout", "status", "deployment/web", "--timeout=60s"), "successfully rolled out")
	c.ok("set", "image", "deployment/web", "nginx=nginx:2")
	contains(t, "rollout status after set image", c.ok("rollout", "status", "deployment/web", "--timeout=60s"), "successfully rolled out")
	contains(t, "rollout history", c.ok("rollout", "history", "deployment/web"), "REVISION", "1", "2")
	c.ok("rollout", "undo", "deployment/web")
	contains(t, "rollout status after undo", c.ok("rollout", "status", "deployment/web", "--timeout=60s"), "successfully rolled out")
	if img := c.ok("get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}"); img != "nginx:1" {
		t.Errorf("after undo the image is %q, want nginx:1", img)
	}
	c.ok("rollout", "restart", "deployment/web")
	contains(t, "rollout status after restart", c.ok("rollout", "status", "deployment/web", "--timeout=60s"), "successfully rolled out")
	c.ok("scale", "deployment/web", "--replicas=5")
	contains(t, "rollout status after scale", c.ok("rollout", "status", "deployment/web", "--timeout=60s"), "successfully rolled out")
	if got := c.ok("get", "deployment", "web", "-o", "jsonpath={.status.availableReplicas}"); got != "5" {
		t.Errorf("available after scale: %q", got)
	}
	if out := c.ok("get", "rs"); strings.Count(out, "web-") < 3 {
		t.Errorf("expected a ReplicaSet per template (3):\n%s", out)
	}
	// Deleting the Deployment takes its ReplicaSets and pods with it
	// (background cascade, the garbage collector).
	c.ok("delete", "deployment", "web")
	deadline := time.Now().Add(30 * time.Second)
	for left := c.ok("get", "rs,pods", "-o", "name"); left != ""; left = c.ok("get", "rs,pods", "-o", "name") {
		if time.Now().After(deadline) {
			t.Fatalf("30 s after deleting the Deployment these remain:\n%s", left)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
