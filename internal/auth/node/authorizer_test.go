package node

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

func nodeUser(name string) user.Info {
	return &user.DefaultInfo{Name: UserName(name), Groups: []string{user.NodesGroup, user.AllAuthenticated}}
}

type req struct {
	verb, group, resource, sub, ns, name string
	fieldSelector                        string
}

func (r req) attrs(u user.Info) authorizer.Attributes {
	a := authorizer.AttributesRecord{User: u, Verb: r.verb, APIGroup: r.group, Resource: r.resource,
		Subresource: r.sub, Namespace: r.ns, Name: r.name, ResourceRequest: true}
	if r.fieldSelector != "" {
		sel, err := fields.ParseSelector(r.fieldSelector)
		if err != nil {
			panic(err)
		}
		a.FieldSelectorRequirements = sel.Requirements()
	}
	return a
}

func secretPod(ns, name, node, secret string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PodSpec{NodeName: node, ServiceAccountName: "default",
			Volumes: []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: secret}}}},
			Containers: []corev1.Container{{Name: "c", Env: []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{
				ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}}}}},
		},
	}
}

func TestAuthorize(t *testing.T) {
	g := NewGraph()
	g.AddPod(RecordPod(secretPod("ns", "web", "n1", "web-tls")))
	g.AddPod(RecordPod(secretPod("ns", "db", "n2", "db-pass")))
	a := New(g, StaticRules())
	n1 := nodeUser("n1")
	const nr = "no relationship found between node 'n1' and this object"
	cases := []struct {
		name   string
		who    user.Info
		req    req
		allow  bool
		reason string
	}{
		{"reads the secret of its pod", n1, req{verb: "get", resource: "secrets", ns: "ns", name: "web-tls"}, true, ""},
		{"watches the secret of its pod", n1, req{verb: "watch", resource: "secrets", ns: "ns", name: "web-tls"}, true, ""},
		{"cannot read an unreferenced secret", n1, req{verb: "get", resource: "secrets", ns: "ns", name: "other"}, false, nr},
		{"cannot read another node's pod's secret", n1, req{verb: "get", resource: "secrets", ns: "ns", name: "db-pass"}, false, nr},
		{"cannot list secrets", n1, req{verb: "list", resource: "secrets", ns: "ns"}, false, "No Object name found"},
		{"cannot list secrets of all namespaces", n1, req{verb: "list", resource: "secrets"}, false, "can only read namespaced object of this type"},
		{"cannot update a secret", n1, req{verb: "update", resource: "secrets", ns: "ns", name: "web-tls"}, false, "can only read resources of this type"},
		{"reads the configmap of its pod", n1, req{verb: "get", resource: "configmaps", ns: "ns", name: "cm"}, true, ""},
		{"gets its pod's service account", n1, req{verb: "get", resource: "serviceaccounts", ns: "ns", name: "default"}, true, ""},
		{"creates a token for its pod's service account", n1, req{verb: "create", resource: "serviceaccounts", sub: "token", ns: "ns", name: "default"}, true, ""},
		{"no token of other service accounts", n1, req{verb: "create", resource: "serviceaccounts", sub: "token", ns: "kube-system", name: "default"}, false, nr},
		{"cannot list service accounts", n1, req{verb: "list", resource: "serviceaccounts", ns: "ns"}, false, "can only create tokens for individual service accounts"},
		{"gets its pod", n1, req{verb: "get", resource: "pods", ns: "ns", name: "web"}, true, ""},
		{"cannot get another node's pod", n1, req{verb: "get", resource: "pods", ns: "ns", name: "db"}, false, nr},
		{"lists its pods", n1, req{verb: "list", resource: "pods", fieldSelector: "spec.nodeName=n1"}, true, ""},
		{"watches its pods", n1, req{verb: "watch", resource: "pods", fieldSelector: "spec.nodeName=n1"}, true, ""},
		{"cannot list all pods", n1, req{verb: "list", resource: "pods"}, false, "can only list/watch pods with spec.nodeName field selector"},
		{"cannot watch another node's pods", n1, req{verb: "watch", resource: "pods", fieldSelector: "spec.nodeName=n2"}, false, "can only list/watch pods with spec.nodeName field selector"},
		{"updates pod status", n1, req{verb: "patch", resource: "pods", sub: "status", ns: "ns", name: "web"}, true, ""},
		{"cannot update pods", n1, req{verb: "update", resource: "pods", ns: "ns", name: "web"}, false, ""},
		{"evicts pods", n1, req{verb: "create", resource: "pods", sub: "eviction", ns: "ns", name: "web"}, true, ""},
		{"gets its node", n1, req{verb: "get", resource: "nodes", name: "n1"}, true, ""},
		{"watches its node", n1, req{verb: "watch", resource: "nodes", name: "n1"}, true, ""},
		{"cannot list nodes", n1, req{verb: "list", resource: "nodes"}, false, "node 'n1' cannot read all nodes, only its own Node object"},
		{"cannot get another node", n1, req{verb: "get", resource: "nodes", name: "n2"}, false, "node 'n1' cannot read 'n2', only its own Node object"},
		{"patches nodes (admission narrows)", n1, req{verb: "patch", resource: "nodes", name: "n1"}, true, ""},
		{"updates node status", n1, req{verb: "update", resource: "nodes", sub: "status", name: "n1"}, true, ""},
		{"cannot delete nodes", n1, req{verb: "delete", resource: "nodes", name: "n1"}, false, ""},
		{"cannot delete other nodes", n1, req{verb: "delete", resource: "nodes", name: "n2"}, false, ""},
		{"renews its lease", n1, req{verb: "update", group: "coordination.k8s.io", resource: "leases", ns: "kube-node-lease", name: "n1"}, true, ""},
		{"creates a lease", n1, req{verb: "create", group: "coordination.k8s.io", resource: "leases", ns: "kube-node-lease"}, true, ""},
		{"cannot take another node's lease", n1, req{verb: "update", group: "coordination.k8s.io", resource: "leases", ns: "kube-node-lease", name: "n2"}, false, "can only access node lease with the same name as the requesting node"},
		{"cannot take the controller manager's lease", n1, req{verb: "update", group: "coordination.k8s.io", resource: "leases", ns: "kube-system", name: "svcplane-controller-manager"}, false, `can only access leases in the "kube-node-lease" system namespace`},
		{"cannot list leases", n1, req{verb: "list", group: "coordination.k8s.io", resource: "leases", ns: "kube-node-lease"}, false, "can only get, create, update, patch, or delete a node lease"},
		{"creates events (static rules)", n1, req{verb: "create", resource: "events", ns: "ns"}, true, ""},
		{"lists services (static rules)", n1, req{verb: "list", resource: "services"}, true, ""},
		{"cannot delete services", n1, req{verb: "delete", resource: "services", ns: "ns", name: "s"}, false, ""},
		{"no opinion on others", &user.DefaultInfo{Name: "alice", Groups: []string{user.NodesGroup}}, req{verb: "get", resource: "secrets", ns: "ns", name: "web-tls"}, false, ""},
		{"a node user outside system:nodes is no node", &user.DefaultInfo{Name: UserName("n1")}, req{verb: "get", resource: "secrets", ns: "ns", name: "web-tls"}, false, ""},
		{"a nameless node", nodeUser(""), req{verb: "get", resource: "nodes"}, false, `unknown node for user "system:node:"`},
	}
	for _, c := range cases {
		d, reason, err := a.Authorize(context.Background(), c.req.attrs(c.who))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if (d == authorizer.DecisionAllow) != c.allow || reason != c.reason {
			t.Errorf("%s: %v %q, want allow=%v %q", c.name, d, reason, c.allow, c.reason)
		}
		if d == authorizer.DecisionDeny {
			t.Errorf("%s: the node authorizer never denies", c.name)
		}
	}
}

// A secret becomes readable when a pod that refers to it is bound to the
// node, and stops being when the last such pod goes.
func TestGraphFollowsPods(t *testing.T) {
	g := NewGraph()
	a := New(g, StaticRules())
	read := req{verb: "get", resource: "secrets", ns: "ns", name: "s"}
	allowed := func() bool {
		d, _, _ := a.Authorize(context.Background(), read.attrs(nodeUser("n1")))
		return d == authorizer.DecisionAllow
	}
	if allowed() {
		t.Fatal("unreferenced secret readable")
	}
	g.AddPod(RecordPod(secretPod("ns", "p1", "n1", "s")))
	g.AddPod(RecordPod(secretPod("ns", "p2", "n1", "s")))
	if !allowed() {
		t.Fatal("secret of a bound pod not readable")
	}
	g.DeletePod("ns", "p1")
	if !allowed() {
		t.Fatal("secret not readable while p2 still refers to it")
	}
	g.AddPod(RecordPod(secretPod("ns", "p2", "n1", "other")))
	if allowed() {
		t.Fatal("secret still readable after the pod stopped referring to it")
	}
	g.DeletePod("ns", "p2")
	if g.Pods() != 0 || len(g.refs) != 0 {
		t.Fatalf("graph not empty: %d pods, %d refs", g.Pods(), len(g.refs))
	}
	mirror := secretPod("ns", "m", "n1", "s")
	mirror.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
	g.AddPod(RecordPod(mirror))
	if allowed() {
		t.Fatal("a mirror pod gives access to its secrets")
	}
}

func TestRulesFor(t *testing.T) {
	a := New(NewGraph(), nil)
	if _, _, incomplete, err := a.RulesFor(context.Background(), nodeUser("n1"), "ns"); !incomplete || err == nil ||
		err.Error() != "node authorizer does not support user rule resolution" {
		t.Errorf("node: incomplete=%v err=%v", incomplete, err)
	}
	if _, _, incomplete, err := a.RulesFor(context.Background(), &user.DefaultInfo{Name: "alice"}, "ns"); incomplete || err != nil {
		t.Errorf("non-node: incomplete=%v err=%v", incomplete, err)
	}
}

// everyRefPod refers to objects by every way a pod can.
func everyRefPod() *corev1.Pod {
	claim, tmpl := "claim", "tmpl"
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"},
		Spec: corev1.PodSpec{
			ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}, {Name: ""}},
			InitContainers: []corev1.Container{{EnvFrom: []corev1.EnvFromSource{
				{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "init-env"}}},
				{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "init-cm"}}}}}},
			EphemeralContainers: []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{
				Env: []corev1.EnvVar{{ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "eph"}}}}}}}},
			Volumes: []corev1.Volume{
				{Name: "proj", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
					{Secret: &corev1.SecretProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "proj-s"}}},
					{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"}}}}}}},
				{Name: "csi", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{NodePublishSecretRef: &corev1.LocalObjectReference{Name: "csi-s"}}}},
				{Name: "pvc", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}},
				{Name: "eph", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}},
			},
			ResourceClaims: []corev1.PodResourceClaim{{Name: "a", ResourceClaimName: &claim}, {Name: "b", ResourceClaimTemplateName: &tmpl}, {Name: "c", ResourceClaimTemplateName: &tmpl}},
		},
		Status: corev1.PodStatus{ResourceClaimStatuses: []corev1.PodResourceClaimStatus{{Name: "b", ResourceClaimName: &tmpl}, {Name: "c"}}},
	}
}

func TestPodRefs(t *testing.T) {
	pod := everyRefPod()
	want := []ref{
		{kindSecret, "ns", "pull"}, {kindSecret, "ns", "init-env"}, {kindSecret, "ns", "eph"}, {kindSecret, "ns", "proj-s"}, {kindSecret, "ns", "csi-s"},
		{kindConfigMap, "ns", "init-cm"}, {kindConfigMap, "ns", "kube-root-ca.crt"},
		{kindPVC, "ns", "data"}, {kindPVC, "ns", "p-eph"},
		{kindResourceClaim, "ns", "claim"}, {kindResourceClaim, "ns", "tmpl"},
	}
	got := podRefs(pod)
	if len(got) != len(want) {
		t.Fatalf("refs %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("ref %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// BenchmarkAuthorize is the cost of a node's secret read with 1,000 nodes
// of 30 pods.
func BenchmarkAuthorize(b *testing.B) {
	g := NewGraph()
	for n := 0; n < 1000; n++ {
		for p := 0; p < 30; p++ {
			node := "n" + string(rune('a'+n%26)) + string(rune('a'+n/26%26)) + string(rune('a'+n/676))
			g.AddPod(RecordPod(secretPod("ns", node+"-"+string(rune('a'+p)), node, "s")))
		}
	}
	a := New(g, StaticRules())
	attrs := req{verb: "get", resource: "secrets", ns: "ns", name: "s"}.attrs(nodeUser("naaa"))
	events := req{verb: "create", resource: "events", ns: "ns"}.attrs(nodeUser("naaa"))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if d, _, _ := a.Authorize(context.Background(), attrs); d != authorizer.DecisionAllow {
			b.Fatal("denied")
		}
		if d, _, _ := a.Authorize(context.Background(), events); d != authorizer.DecisionAllow {
			b.Fatal("denied")
		}
	}
}
