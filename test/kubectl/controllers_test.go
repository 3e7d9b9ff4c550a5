package kubectl

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/svcplane/svcplane/internal/testutil"
)

// eventually polls get until it returns want (trimmed) or 30 s pass.
func (c k) eventually(want string, get ...string) {
	c.t.Helper()
	testutil.EventuallyErr(c.t, 30*time.Second, "kubectl "+strings.Join(get, " "), func() error {
		if got := strings.TrimSpace(c.ok(get...)); got != want {
			return fmt.Errorf("%q, want %q", got, want)
		}
		return nil
	})
}

func count(out string) int { return len(strings.Fields(out)) }

// TestScaleUpAndDown scales a Deployment 3 → 10 → 2 through kubectl.
func TestScaleUpAndDown(t *testing.T) {
	skipShort(t)
	c := namespace(t, "scaling")
	c.deploy("web", 3)
	c.ok("rollout", "status", "deployment/web", "--timeout=60s")
	for _, n := range []string{"10", "2"} {
		c.ok("scale", "deployment/web", "--replicas="+n)
		contains(t, "rollout status after scale to "+n, c.ok("rollout", "status", "deployment/web", "--timeout=60s"), "successfully rolled out")
		c.eventually(n, "get", "deployment", "web", "-o", "jsonpath={.status.availableReplicas}")
		c.eventually(n, "get", "rs", "-o", "jsonpath={.items[0].spec.replicas}")
		testutil.EventuallyErr(t, 30*time.Second, n+" pods after scaling to "+n, func() error {
			if got := count(c.ok("get", "pods", "-o", "name")); got != atoi(n) {
				return fmt.Errorf("%d pods", got)
			}
			return nil
		})
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
	skipShort(t)
	c := namespace(t, "cascade")
	deploy := func(name string) {
		c.deploy(name, 2)
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
	skipShort(t)
	root := k{t: t, bin: "kubectl"}
	c := namespace(t, "full")
	c.deploy("web", 3)
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
	skipShort(t)
	c := namespace(t, "pausing")
	c.deploy("web", 2)
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

// TestEndpointSlicesFollowPods: a Service's EndpointSlice shows its pods on
// the simulated nodes as they turn ready and unready, terminate (serving,
// not ready) and go.
func TestEndpointSlicesFollowPods(t *testing.T) {
	skipShort(t)
	c := namespace(t, "slices")
	c.deploy("web", 3)
	c.ok("rollout", "status", "deployment/web", "--timeout=60s")
	c.ok("expose", "deployment", "web", "--port=80")
	conditions := func() string {
		return `jsonpath={range .items[*].endpoints[*]}{.targetRef.name}={.conditions.ready}/{.conditions.serving}/{.conditions.terminating} {end}`
	}
	slices := func() map[string]string {
		out := c.ok("get", "endpointslices", "-l", "kubernetes.io/service-name=web", "-o", conditions())
		m := map[string]string{}
		for _, f := range strings.Fields(out) {
			name, cond, _ := strings.Cut(f, "=")
			m[name] = cond
		}
		return m
	}
	waitFor := func(what string, ok func(map[string]string) bool) map[string]string {
		t.Helper()
		var m map[string]string
		testutil.EventuallyErr(t, 30*time.Second, what, func() error {
			if m = slices(); !ok(m) {
				return fmt.Errorf("slice endpoints are %v", m)
			}
			return nil
		})
		return m
	}
	all := func(cond string, n int) func(map[string]string) bool {
		return func(m map[string]string) bool {
			if len(m) != n {
				return false
			}
			for _, v := range m {
				if v != cond {
					return false
				}
			}
			return true
		}
	}
	waitFor("three ready endpoints", all("true/true/false", 3))
	// Each endpoint carries its simulated node and that node's zone.
	placed := c.ok("get", "endpointslices", "-l", "kubernetes.io/service-name=web", "-o",
		"jsonpath={range .items[*].endpoints[*]}{.nodeName}@{.zone} {end}")
	for _, p := range strings.Fields(placed) {
		node, zone, _ := strings.Cut(p, "@")
		want := map[string]string{"kt-node-0": "a", "kt-node-1": "b", "kt-node-2": "c"}[node]
		if want == "" || zone != want {
			t.Errorf("endpoint on node %q in zone %q (want its node's zone %q)", node, zone, want)
		}
	}
	pods := strings.Fields(c.ok("get", "pods", "-l", "app=web", "-o", "jsonpath={.items[*].metadata.name}"))
	if len(pods) != 3 {
		t.Fatalf("pods: %v", pods)
	}
	// Unready by annotation: in the slice, not ready and not serving.
	c.ok("annotate", "pod", pods[0], "svcplane.io/ready=false")
	waitFor(pods[0]+" unready", func(m map[string]string) bool { return m[pods[0]] == "false/false/false" })
	c.ok("annotate", "pod", pods[0], "svcplane.io/ready-")
	waitFor(pods[0]+" ready again", func(m map[string]string) bool { return m[pods[0]] == "true/true/false" })

	// Deleted with a grace period and a termination delay: terminating and
	// still serving, then gone (and replaced by the ReplicaSet).
	c.ok("annotate", "pod", pods[1], "svcplane.io/termination-delay=5s")
	c.ok("delete", "pod", pods[1], "--grace-period=5", "--wait=false")
	waitFor(pods[1]+" terminating", func(m map[string]string) bool { return m[pods[1]] == "false/true/true" })
	waitFor(pods[1]+" gone and replaced", func(m map[string]string) bool {
		_, there := m[pods[1]]
		return !there && all("true/true/false", 3)(m)
	})
	c.ok("scale", "deployment/web", "--replicas=0")
	waitFor("no endpoints after scaling to 0", func(m map[string]string) bool { return len(m) == 0 })
}
