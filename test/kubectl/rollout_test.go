package kubectl

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/svcplane/svcplane/internal/testutil"
)

// namespace creates a namespace for one test and returns kubectl in it,
// once its default ServiceAccount is there.
func namespace(t *testing.T, name string) k {
	t.Helper()
	k{t: t, bin: "kubectl"}.ok("create", "namespace", name)
	c := k{t: t, bin: "kubectl", ns: name}
	c.waitForDefaultServiceAccount()
	return c
}

// waitForDefaultServiceAccount waits until c's namespace has its default
// ServiceAccount, as the e2e framework does after creating a namespace:
// until the serviceaccount controller has made it, ServiceAccount
// admission refuses the namespace's pods (the ReplicaSet controller then
// backs off before it tries again).
func (c k) waitForDefaultServiceAccount() {
	c.t.Helper()
	testutil.EventuallyErr(c.t, 30*time.Second, "the default ServiceAccount of "+c.ns, func() error {
		if _, errOut, err := c.run("get", "serviceaccount", "default"); err != nil {
			return fmt.Errorf("%v: %s", err, errOut)
		}
		return nil
	})
}

// deploy applies a Deployment like `kubectl create deployment NAME
// --image=nginx:1` (container "nginx", label app=NAME) whose pods have a
// 2 s grace period: simulated pods serve until it ends.
func (c k) deploy(name string, replicas int) {
	c.t.Helper()
	c.ok("apply", "-f", writeFile(c.t, fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, labels: {app: %[1]s}}
spec:
  replicas: %[2]d
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      terminationGracePeriodSeconds: 2
      containers: [{name: nginx, image: "nginx:1"}]
`, name, replicas)))
}

// TestRollout drives kubectl's rollout commands against the Deployment and
// ReplicaSet controllers, the scheduler and the simulated nodes.
func TestRollout(t *testing.T) {
	skipShort(t)
	c := namespace(t, "rollout")
	c.deploy("web", 3)
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
	testutil.EventuallyErr(t, 30*time.Second, "the Deployment's ReplicaSets and pods to go", func() error {
		if left := c.ok("get", "rs,pods", "-o", "name"); left != "" {
			return fmt.Errorf("these remain:\n%s", left)
		}
		return nil
	})
}
