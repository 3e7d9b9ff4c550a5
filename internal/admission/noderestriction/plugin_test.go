package noderestriction

import (
	"context"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/auth/node"
)

func nodeUser(name string) user.Info {
	return &user.DefaultInfo{Name: "system:node:" + name, Groups: []string{user.NodesGroup}}
}

func pod(name, node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: "uid-" + types.UID(name), Labels: map[string]string{"app": "x"}},
		Spec: corev1.PodSpec{NodeName: node}}
}

func mirrorPod(node string, uid string) *corev1.Pod {
	p := pod("mirror", node)
	p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node, UID: types.UID(uid), Controller: ptr.To(true)}}
	return p
}

func nodeObj(name string, labels map[string]string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: labels}}
}

func newPlugin(t *testing.T) *Plugin {
	f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	p := New()
	p.SetExternalKubeInformerFactory(f)
	if err := p.ValidateInitialization(); err != nil {
		t.Fatal(err)
	}
	for _, o := range []*corev1.Pod{pod("mine", "n1"), pod("theirs", "n2")} {
		_ = node.PodRecordInformer(f).GetStore().Add(node.RecordPod(o))
	}
	_ = f.Core().V1().Nodes().Informer().GetStore().Add(nodeObj("n1", nil))
	return p
}

type call struct {
	op       admission.Operation
	resource string
	group    string
	sub      string
	ns, name string
	obj, old runtime.Object
}

func (c call) attrs(u user.Info) admission.Attributes {
	gvr := schema.GroupVersionResource{Group: c.group, Version: "v1", Resource: c.resource}
	return admission.NewAttributesRecord(c.obj, c.old, schema.GroupVersionKind{}, c.ns, c.name, gvr, c.sub, c.op, nil, false, u)
}

func TestAdmit(t *testing.T) {
	withLabels := func(p *corev1.Pod, l map[string]string) *corev1.Pod { p = p.DeepCopy(); p.Labels = l; return p }
	tainted := nodeObj("n1", nil)
	tainted.Spec.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
	withSecret := mirrorPod("n1", "uid-n1")
	withSecret.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}}}
	token := func(podName, uid string) *authenticationv1.TokenRequest {
		return &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{
			APIVersion: "v1", Kind: "Pod", Name: podName, UID: types.UID(uid)}}}
	}
	lease := func(name string) *coordinationv1.Lease {
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-node-lease", Name: name}}
	}
	cases := []struct {
		name string
		who  user.Info
		call call
		err  string // "" admitted; else a substring of the error
	}{
		{"creates its node", nodeUser("n1"), call{op: admission.Create, resource: "nodes", name: "n1",
			obj: nodeObj("n1", map[string]string{corev1.LabelHostname: "n1", corev1.LabelTopologyZone: "a", "node.kubernetes.io/exclude-from-external-load-balancers": "", "example.com/x": "y"})}, ""},
		{"cannot create another node", nodeUser("n1"), call{op: admission.Create, resource: "nodes", name: "n2", obj: nodeObj("n2", nil)},
			`node "n1" is not allowed to modify node "n2"`},
		{"cannot patch another node", nodeUser("n1"), call{op: admission.Update, resource: "nodes", name: "n2", obj: nodeObj("n2", nil), old: nodeObj("n2", nil)},
			`nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"`},
		{"cannot update another node's status", nodeUser("n1"), call{op: admission.Update, resource: "nodes", sub: "status", name: "n2", obj: nodeObj("n2", nil), old: nodeObj("n2", nil)},
			`node "n1" is not allowed to modify node "n2"`},
		{"cannot delete another node", nodeUser("n1"), call{op: admission.Delete, resource: "nodes", name: "n2"},
			`node "n1" is not allowed to modify node "n2"`},
		{"cannot set restricted labels", nodeUser("n1"), call{op: admission.Create, resource: "nodes", name: "n1",
			obj: nodeObj("n1", map[string]string{"node-restriction.kubernetes.io/a": "", "node-role.kubernetes.io/control-plane": "", "foo.k8s.io/b": ""})},
			`node "n1" is not allowed to set the following labels: foo.k8s.io/b, node-restriction.kubernetes.io/a, node-role.kubernetes.io/control-plane`},
		{"cannot change restricted labels", nodeUser("n1"), call{op: admission.Update, resource: "nodes", name: "n1",
			obj: nodeObj("n1", map[string]string{"a.node-restriction.kubernetes.io/x": "2"}), old: nodeObj("n1", map[string]string{"a.node-restriction.kubernetes.io/x": "1"})},
			`is not allowed to modify labels: a.node-restriction.kubernetes.io/x`},
		{"cannot change taints", nodeUser("n1"), call{op: admission.Update, resource: "nodes", name: "n1", obj: tainted, old: nodeObj("n1", nil)},
			`node "n1" is not allowed to modify taints`},
		{"updates its node's status", nodeUser("n1"), call{op: admission.Update, resource: "nodes", sub: "status", name: "n1", obj: nodeObj("n1", nil), old: nodeObj("n1", nil)}, ""},
		{"sets its pod's status", nodeUser("n1"), call{op: admission.Update, resource: "pods", sub: "status", ns: "ns", name: "mine", obj: pod("mine", "n1"), old: pod("mine", "n1")}, ""},
		{"cannot set another node's pod status", nodeUser("n1"), call{op: admission.Update, resource: "pods", sub: "status", ns: "ns", name: "theirs", obj: pod("theirs", "n2"), old: pod("theirs", "n2")},
			`node "n1" can only update pod status for pods with spec.nodeName set to itself`},
		{"cannot change labels through status", nodeUser("n1"), call{op: admission.Update, resource: "pods", sub: "status", ns: "ns", name: "mine", obj: withLabels(pod("mine", "n1"), nil), old: pod("mine", "n1")},
			`node "n1" cannot update labels through pod status`},
		{"deletes its pod", nodeUser("n1"), call{op: admission.Delete, resource: "pods", ns: "ns", name: "mine"}, ""},
		{"cannot delete another node's pod", nodeUser("n1"), call{op: admission.Delete, resource: "pods", ns: "ns", name: "theirs"},
			`node "n1" can only delete pods with spec.nodeName set to itself`},
		{"cannot update pods", nodeUser("n1"), call{op: admission.Update, resource: "pods", ns: "ns", name: "mine", obj: pod("mine", "n1"), old: pod("mine", "n1")},
			`unexpected operation "UPDATE", node "n1" can only create and delete mirror pods`},
		{"creates its mirror pod", nodeUser("n1"), call{op: admission.Create, resource: "pods", ns: "ns", name: "mirror", obj: mirrorPod("n1", "uid-n1")}, ""},
		{"cannot create plain pods", nodeUser("n1"), call{op: admission.Create, resource: "pods", ns: "ns", name: "p", obj: pod("p", "n1")},
			`pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods`},
		{"cannot create another node's mirror pod", nodeUser("n1"), call{op: admission.Create, resource: "pods", ns: "ns", name: "mirror", obj: mirrorPod("n2", "uid-n2")},
			`node "n1" can only create pods with spec.nodeName set to itself`},
		{"mirror pod owner UID", nodeUser("n1"), call{op: admission.Create, resource: "pods", ns: "ns", name: "mirror", obj: mirrorPod("n1", "other")},
			`node n1 UID mismatch: expected other got uid-n1`},
		{"mirror pods refer to no secrets", nodeUser("n1"), call{op: admission.Create, resource: "pods", ns: "ns", name: "mirror", obj: withSecret},
			`node "n1" can not create pods that reference secrets`},
		{"evicts its pod", nodeUser("n1"), call{op: admission.Create, resource: "pods", sub: "eviction", ns: "ns", name: "mine", obj: &policyv1.Eviction{}}, ""},
		{"cannot evict another node's pod", nodeUser("n1"), call{op: admission.Create, resource: "pods", sub: "eviction", ns: "ns", name: "theirs", obj: &policyv1.Eviction{}},
			`node n1 can only evict pods with spec.nodeName set to itself`},
		{"no other pod subresources", nodeUser("n1"), call{op: admission.Create, resource: "pods", sub: "binding", ns: "ns", name: "mine"},
			`unexpected pod subresource "binding", only 'status' and 'eviction' are allowed`},
		{"takes its lease", nodeUser("n1"), call{op: admission.Create, group: "coordination.k8s.io", resource: "leases", ns: "kube-node-lease", name: "n1", obj: lease("n1")}, ""},
		{"renews its lease", nodeUser("n1"), call{op: admission.Update, group: "coordination.k8s.io", resource: "leases", ns: "kube-node-lease", name: "n1", obj: lease("n1"), old: lease("n1")}, ""},
		{"cannot create another node's lease", nodeUser("n1"), call{op: admission.Create, group: "coordination.k8s.io", resource: "leases", ns: "kube-node-lease", obj: lease("n2")},
			`can only access node lease with the same name as the requesting node`},
		{"cannot take another node's lease", nodeUser("n1"), call{op: admission.Update, group: "coordination.k8s.io", resource: "leases", ns: "kube-node-lease", name: "n2", obj: lease("n2"), old: lease("n2")},
			`can only access node lease with the same name as the requesting node`},
		{"cannot take the controller manager's lease", nodeUser("n1"), call{op: admission.Update, group: "coordination.k8s.io", resource: "leases", ns: "kube-system", name: "svcplane-controller-manager"},
			`can only access leases in the "kube-node-lease" system namespace`},
		{"token for its pod", nodeUser("n1"), call{op: admission.Create, resource: "serviceaccounts", sub: "token", ns: "ns", name: "default", obj: token("mine", "uid-mine")}, ""},
		{"no token for another node's pod", nodeUser("n1"), call{op: admission.Create, resource: "serviceaccounts", sub: "token", ns: "ns", name: "default", obj: token("theirs", "uid-theirs")},
			`node requested token bound to a pod scheduled on a different node`},
		{"no unbound token", nodeUser("n1"), call{op: admission.Create, resource: "serviceaccounts", sub: "token", ns: "ns", name: "default", obj: &authenticationv1.TokenRequest{}},
			`node requested token not bound to a pod`},
		{"a nameless node", nodeUser(""), call{op: admission.Create, resource: "configmaps", ns: "ns", name: "x"},
			`could not determine node from user "system:node:"`},
		{"others pass", &user.DefaultInfo{Name: "alice", Groups: []string{user.NodesGroup}}, call{op: admission.Delete, resource: "nodes", name: "n2"}, ""},
	}
	p := newPlugin(t)
	for _, c := range cases {
		err := p.Admit(context.Background(), c.call.attrs(c.who), nil)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		case c.err != "" && !apierrors.IsForbidden(err):
			t.Errorf("%s: %v is no Forbidden", c.name, err)
		}
	}
}
