package integration

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/svcplane/svcplane/internal/node/agent"
	"github.com/svcplane/svcplane/internal/plane"
)

// nodeClient mints a kubelet's credentials (user system:node:<name> in
// system:nodes, as `svcplane kubeconfig` does) on the shared server.
func nodeClient(t *testing.T, name string) kubernetes.Interface {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	noErr(t, plane.WriteKubeconfig(server.Options.DataDir, path, "system:node:"+name, []string{"system:nodes"}, ""))
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	noErr(t, err)
	cfg.QPS, cfg.Burst = -1, 0
	return kubernetes.NewForConfigOrDie(cfg)
}

func forbidden(t *testing.T, what string, err error, message string) {
	t.Helper()
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), message) {
		t.Errorf("%s: %v, want Forbidden with %q", what, err, message)
	}
}

// TestNodeAuthorization runs the node agent for one node on that node's
// own identity (Node authorizer and NodeRestriction): it registers, renews
// its Lease, runs a pod and posts its status, all allowed. The same
// identity reads a Secret only once a pod bound to it refers to it, and
// cannot write another node, its pods' status, another Lease, nor delete
// Nodes.
func TestNodeAuthorization(t *testing.T) {
	skipShort(t)
	ctx := context.Background()
	c := server.Client
	const name = "authz-n1"
	nc := nodeClient(t, name)
	// The Node goes when the test ends (after the agent stops), so the
	// shared server's scheduler binds no other test's pod to it.
	defer func() { _ = c.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}) }()
	a, err := agent.New(agent.Config{Client: nc, Names: []string{name}, Zones: []string{"z1"}, LeaseDuration: 4 * time.Second})
	noErr(t, err)
	actx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { _ = a.Run(actx); close(done) }()
	defer func() { cancel(); <-done }()

	eventually(t, "its Node Ready with a pod CIDR", func() bool {
		n, err := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		return err == nil && nodeReady(n) == corev1.ConditionTrue && len(n.Spec.PodCIDRs) > 0
	})
	eventually(t, "its Lease renewed", func() bool {
		l, err := c.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, name, metav1.GetOptions{})
		return err == nil && l.Spec.RenewTime != nil
	})

	ns := newNamespace(t, c)
	get(c.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "used"}}, metav1.CreateOptions{}))(t)
	get(c.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "unused"}}, metav1.CreateOptions{}))(t)
	_, err = nc.CoreV1().Secrets(ns).Get(ctx, "used", metav1.GetOptions{})
	forbidden(t, "read a Secret no pod of its refers to", err, "no relationship found between node 'authz-n1' and this object")

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.PodSpec{NodeName: name,
		Containers: []corev1.Container{{Name: "c", Image: "nginx"}},
		Volumes:    []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "used"}}}}}}
	get(c.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}))(t)
	eventually(t, "its pod Running and Ready (status posted by the node)", func() bool {
		p, err := c.CoreV1().Pods(ns).Get(ctx, "web", metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning && isPodReady(p)
	})
	eventually(t, "the pod's Secret readable by its node", func() bool {
		_, err := nc.CoreV1().Secrets(ns).Get(ctx, "used", metav1.GetOptions{})
		return err == nil
	})
	_, err = nc.CoreV1().Secrets(ns).Get(ctx, "unused", metav1.GetOptions{})
	forbidden(t, "read an unreferenced Secret", err, "no relationship found")
	_, err = nc.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
	forbidden(t, "list Secrets", err, "No Object name found")
	_, err = nc.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	forbidden(t, "list Nodes", err, "node 'authz-n1' cannot read all nodes, only its own Node object")
	// The agent's informers: its own Node by name, its pods by node.
	_, err = nc.CoreV1().Nodes().List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	noErr(t, err)
	_, err = nc.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + name})
	noErr(t, err)
	_, err = nc.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName!="})
	forbidden(t, "list every node's pods", err, "can only list/watch pods with spec.nodeName field selector")

	// Another node and a pod bound to it.
	other := get(c.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "authz-other"}}, metav1.CreateOptions{}))(t)
	defer func() { _ = c.CoreV1().Nodes().Delete(ctx, other.Name, metav1.DeleteOptions{}) }()
	theirs := get(c.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "theirs"}, Spec: corev1.PodSpec{NodeName: other.Name,
		Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{}))(t)

	_, err = nc.CoreV1().Nodes().Patch(ctx, other.Name, types.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`), metav1.PatchOptions{})
	forbidden(t, "patch another Node", err, `node "authz-n1" is not allowed to modify node "authz-other"`)
	_, err = nc.CoreV1().Nodes().Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"labels":{"node-restriction.kubernetes.io/x":"y"}}}`), metav1.PatchOptions{})
	forbidden(t, "set a restricted label on its Node", err, "is not allowed to modify labels: node-restriction.kubernetes.io/x")
	err = nc.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{})
	forbidden(t, "delete its Node", err, `cannot delete resource "nodes"`)
	err = nc.CoreV1().Nodes().Delete(ctx, other.Name, metav1.DeleteOptions{})
	forbidden(t, "delete another Node", err, `cannot delete resource "nodes"`)

	theirs.Status.Message = "hijacked"
	_, err = nc.CoreV1().Pods(ns).UpdateStatus(ctx, theirs, metav1.UpdateOptions{})
	forbidden(t, "set another node's pod status", err, `node "authz-n1" can only update pod status for pods with spec.nodeName set to itself`)
	err = nc.CoreV1().Pods(ns).Delete(ctx, theirs.Name, metav1.DeleteOptions{})
	forbidden(t, "delete another node's pod", err, `node "authz-n1" can only delete pods with spec.nodeName set to itself`)

	_, err = nc.CoordinationV1().Leases(corev1.NamespaceNodeLease).Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: other.Name}}, metav1.CreateOptions{})
	forbidden(t, "take another node's Lease", err, "can only access node lease with the same name as the requesting node")
	_, err = nc.CoordinationV1().Leases("kube-system").Get(ctx, "svcplane-controller-manager", metav1.GetOptions{})
	forbidden(t, "read the controller manager's Lease", err, `can only access leases in the "kube-node-lease" system namespace`)
	_, err = nc.CoordinationV1().Leases("kube-system").Update(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "svcplane-controller-manager"}}, metav1.UpdateOptions{})
	forbidden(t, "take the controller manager's Lease", err, `can only access leases in the "kube-node-lease" system namespace`)

	// The agent's own requests were all allowed: its Node event was
	// written, and its pod is still Running.
	eventually(t, "the node's NodeReady event", func() bool {
		evs, err := c.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + name})
		if err != nil {
			return false
		}
		for _, e := range evs.Items {
			if e.Reason == "NodeReady" {
				return true
			}
		}
		return false
	})
}
