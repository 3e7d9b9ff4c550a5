package kubectl

import (
	"context"
	"strings"
	"testing"
	"time"
)

// eventually polls get until it returns want (trimmed) or 30 s pass.
func (c k) eventually(want string, get ...string) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	got := strings.TrimSpace(c.ok(get...))
	for ; got != want; got = strings.TrimSpace(c.ok(get...)) {
		if time.Now().After(deadline) {
			c.t.Fatalf("kubectl %s: %q after 30 s, want %q", strings.Join(get, " "), got, want)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func count(out string) int { return len(strings.Fields(out)) }

// TestScaleUpAndDown scales a Deployment 3 → 10 → 2 through kubectl.
func TestScaleUpAndDown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	k{t: t, bin: "kubectl"}.ok("create", "namespace", "scaling")
	c := k{t: t, bin: "kubectl", ns: "scaling"}
	readyLoop(ctx, t, "scaling")
	c.ok("create", "deployment", "web", "--image=nginx:1", "--replicas=3")
	c.ok("rollout", "status", "deployment/web", "--timeout=60s")
	for _, n := range []string{"10", "2"} {
		c.ok("scale", "deployment/web", "--replicas="+n)
		contains(t, "rollout status after scale to "+n, c.ok("rollout", "status", "deployment/web", "--timeout=60s"), "successfully rolled out")
		c.eventually(n, "get", "deployment", "web", "-o", "jsonpath={.status.availableReplicas}")
		c.eventually(n, "get", "rs", "-o", "jsonpath={.items[0].spec.replicas}")
		deadline := time.Now().Add(30 * time.Second)
		for got := count(c.ok("get", "pods", "-o", "name")); got != atoi(n); got = count(c.ok("get", "pods", "-o", "name")) {
			if time.Now().After(deadline) {
				t.Fatalf("%d pods 30 s after scaling to %s", got, n)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}

// TestDeleteCascadeModes deletes a Deployment with each --cascade mode.
func TestDeleteCascadeModes(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	k{t: t, bin: "kubectl"}.ok("create", "namespace", "cascade")
	c := k{t: t, bin: "kubectl", ns: "cascade"}
	readyLoop(ctx, t, "cascade")
	deploy := func(name string) {
		c.ok("create", "deployment", name, "--image=nginx:1", "--replicas=2")
		c.ok("rollout", "status", "deployment/"+name, "--timeout=60s")
	}
	owned := func(name string) string {
		return c.ok("get", "rs,pods", "-l", "app="+name, "-o", "name")
	}

	// foreground: kubectl waits until the Deployment is gone, and it goes
	// only after its ReplicaSet and pods.
	deploy("fg")
	c.ok("delete", "deployment", "fg", "--cascade=foreground", "--timeout=60s")
	if left := owned("fg"); left != "" {
		t.Errorf("foreground: the Deployment is gone but these remain:\n%s", left)
	}

	// orphan: the ReplicaSet and pods stay, without an owner reference.
	deploy("orphan")
	c.ok("delete", "deployment", "orphan", "--cascade=orphan", "--timeout=60s")
	c.eventually("", "get", "rs", "-l", "app=orphan", "-o", "jsonpath={.items[*].metadata.ownerReferences}")
	if n := count(owned("orphan")); n != 3 {
		t.Errorf("orphan: want the ReplicaSet and its 2 pods kept, got %d objects", n)
	}
	c.ok("delete", "rs", "-l", "app=orphan")

	// background: the Deployment goes at once, the rest after it.
	deploy("bg")
	c.ok("delete", "deployment", "bg", "--cascade=background")
	c.eventually("", "get", "rs,pods", "-l", "app=bg", "-o", "name")
	c.eventually("", "get", "rs,pods", "-l", "app=orphan", "-o", "name")
}

// TestDeleteNamespaceWithContent deletes a namespace full of objects; it
// and all of them go.
func TestDeleteNamespaceWithContent(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	root := k{t: t, bin: "kubectl"}
	root.ok("create", "namespace", "full")
	c := k{t: t, bin: "kubectl", ns: "full"}
	readyLoop(ctx, t, "full")
	c.ok("create", "deployment", "web", "--image=nginx:1", "--replicas=3")
	c.ok("expose", "deployment", "web", "--port=80")
	c.ok("create", "configmap", "settings", "--from-literal=a=b")
	c.ok("create", "secret", "generic", "token", "--from-literal=t=x")
	c.ok("create", "serviceaccount", "robot")
	c.ok("rollout", "status", "deployment/web", "--timeout=60s")
	root.ok("delete", "namespace", "full", "--timeout=90s")
	contains(t, "get namespace after delete", root.fails("get", "namespace", "full"), `namespaces "full" not found`)
	ip := strings.TrimSpace(root.ok("get", "ipaddresses", "-o", "jsonpath={.items[?(@.spec.parentRef.namespace==\"full\")].metadata.name}"))
	if ip != "" {
		t.Errorf("the deleted Service's IPAddress remains: %s", ip)
	}
}

// TestRolloutPauseResume: a paused Deployment takes template changes
// without rolling them out; resume rolls them out.
func TestRolloutPauseResume(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	k{t: t, bin: "kubectl"}.ok("create", "namespace", "pausing")
	c := k{t: t, bin: "kubectl", ns: "pausing"}
	readyLoop(ctx, t, "pausing")
	c.ok("create", "deployment", "web", "--image=nginx:1", "--replicas=2")
	c.ok("rollout", "status", "deployment/web", "--timeout=60s")
	contains(t, "rollout pause", c.ok("rollout", "pause", "deployment/web"), "paused")
	c.ok("set", "image", "deployment/web", "nginx=nginx:2")
	c.eventually("Unknown/DeploymentPaused", "get", "deployment", "web", "-o",
		`jsonpath={.status.conditions[?(@.type=="Progressing")].status}/{.status.conditions[?(@.type=="Progressing")].reason}`)
	if n := count(c.ok("get", "rs", "-o", "name")); n != 1 {
		t.Fatalf("a paused Deployment must not roll out: %d ReplicaSets", n)
	}
	contains(t, "rollout resume", c.ok("rollout", "resume", "deployment/web"), "resumed")
	contains(t, "rollout status after resume", c.ok("rollout", "status", "deployment/web", "--timeout=60s"), "successfully rolled out")
	if n := count(c.ok("get", "rs", "-o", "name")); n != 2 {
		t.Fatalf("after resume: %d ReplicaSets, want 2", n)
	}
}
