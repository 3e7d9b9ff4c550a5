package drift

import (
	"context"
	"fmt"
	"math/rand"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/kubernetes/pkg/apis/coordination"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/policy"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	"k8s.io/kubernetes/pkg/auth/nodeidentifier"
	upstreamnr "k8s.io/kubernetes/plugin/pkg/admission/noderestriction"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/admission/noderestriction"
	"github.com/svcplane/svcplane/internal/auth/node"
)

// The label keys a node may or may not set (kubelet labels, restricted
// namespaces, foreign kubernetes.io ones, its own).
var nrLabelKeys = []string{
	"kubernetes.io/hostname", "topology.kubernetes.io/zone", "kubernetes.io/os", "beta.kubernetes.io/arch",
	"node.kubernetes.io/instance-type", "node-role.kubernetes.io/control-plane", "x.node-restriction.kubernetes.io/a",
	"node-restriction.kubernetes.io/b", "kubelet.kubernetes.io/c", "foo.k8s.io/d", "k8s.io/e", "example.com/f", "plain",
}

func nrLabels(r *rand.Rand) map[string]string {
	if r.Intn(3) == 0 {
		return nil
	}
	out := map[string]string{}
	for i := r.Intn(3); i >= 0; i-- {
		out[naPick(r, nrLabelKeys)] = naPick(r, []string{"1", "2"})
	}
	return out
}

func nrNode(r *rand.Rand, name string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Labels: nrLabels(r)}}
	if r.Intn(4) == 0 {
		n.Spec.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
	}
	if r.Intn(6) == 0 {
		n.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "X", Name: "o", UID: "u"}}
	}
	if r.Intn(10) == 0 {
		n.Spec.ConfigSource = &corev1.NodeConfigSource{ConfigMap: &corev1.ConfigMapNodeConfigSource{Namespace: "ns", Name: "c", KubeletConfigKey: "k"}}
	}
	return n
}

// nrPod is a random pod for NodeRestriction: often a mirror pod with an
// owner reference that is right or wrong in one way, sometimes referring
// to API objects.
func nrPod(r *rand.Rand, name string) *corev1.Pod {
	p := randomNodePod(r, "ns1", name)
	p.Labels = nrLabels(r)
	p.UID = types.UID("uid-" + name)
	if r.Intn(2) == 0 {
		p = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: name, UID: p.UID, Labels: p.Labels}, Spec: corev1.PodSpec{NodeName: p.Spec.NodeName}}
		if r.Intn(3) == 0 {
			p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: []corev1.VolumeSource{
				{EmptyDir: &corev1.EmptyDirVolumeSource{}}, {HostPath: &corev1.HostPathVolumeSource{Path: "/"}},
				{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{DownwardAPI: &corev1.DownwardAPIProjection{}}, {ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t"}}}}},
				{Glusterfs: &corev1.GlusterfsVolumeSource{EndpointsName: "e", Path: "p"}}, {CSI: &corev1.CSIVolumeSource{Driver: "d"}},
			}[r.Intn(5)]}}
		}
	}
	if r.Intn(4) != 0 {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[corev1.MirrorPodAnnotationKey] = "x"
	}
	owner := naPick(r, naNodes)
	ref := metav1.OwnerReference{APIVersion: "v1", Kind: "Node", Name: owner, UID: types.UID("uid-" + owner), Controller: ptr.To(true)}
	switch r.Intn(8) {
	case 0:
		ref.APIVersion = "apps/v1"
	case 1:
		ref.Controller = nil
	case 2:
		ref.BlockOwnerDeletion = ptr.To(true)
	case 3:
		ref.UID = "stale"
	}
	switch r.Intn(6) {
	case 0:
	case 1:
		p.OwnerReferences = []metav1.OwnerReference{ref, ref}
	default:
		p.OwnerReferences = []metav1.OwnerReference{ref}
	}
	if r.Intn(4) == 0 {
		claim := naPick(r, naNames)
		p.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "y", ResourceClaimName: &claim}}
	}
	return p
}

type nrCase struct {
	op                  admission.Operation
	group, resource     string
	sub, ns, name       string
	obj, old            runtime.Object
	internal, internOld runtime.Object
}

func (c nrCase) attrs(u user.Info, obj, old runtime.Object) admission.Attributes {
	gvr := schema.GroupVersionResource{Group: c.group, Version: "v1", Resource: c.resource}
	return admission.NewAttributesRecord(obj, old, schema.GroupVersionKind{}, c.ns, c.name, gvr, c.sub, c.op, nil, false, u)
}

// randomNRCase is a write a node (or someone) might send, with the
// object in v1 for ours and converted to internal for upstream.
func randomNRCase(t *testing.T, r *rand.Rand) nrCase {
	ops := []admission.Operation{admission.Create, admission.Update, admission.Delete}
	c := nrCase{op: ops[r.Intn(3)]}
	name := naPick(r, append(append([]string{}, naNames...), naNodes...))
	switch r.Intn(5) {
	case 0:
		c.resource, c.name = "nodes", naPick(r, naNodes)
		if r.Intn(4) == 0 {
			c.sub = "status"
		}
		if c.op != admission.Delete {
			c.obj, c.internal = nrNode(r, c.name), &api.Node{}
		}
		if c.op == admission.Update {
			old := nrNode(r, c.name)
			if r.Intn(2) == 0 {
				old = c.obj.(*corev1.Node).DeepCopy()
			}
			c.old, c.internOld = old, &api.Node{}
		}
	case 1, 2:
		c.resource, c.ns, c.name = "pods", "ns1", name
		c.sub = []string{"", "", "status", "eviction", "binding"}[r.Intn(5)]
		switch {
		case c.sub == "eviction":
			c.op = admission.Create
			if r.Intn(4) == 0 {
				c.name = ""
			}
			c.obj, c.internal = &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: name}}, &policy.Eviction{}
		case c.op != admission.Delete:
			p := nrPod(r, name)
			c.obj, c.internal = p, &api.Pod{}
			if c.op == admission.Update {
				old := nrPod(r, name)
				if r.Intn(2) == 0 {
					old = p.DeepCopy()
					old.Status.Message = "before"
				}
				c.old, c.internOld = old, &api.Pod{}
			}
		}
	case 3:
		c.group, c.resource = "coordination.k8s.io", "leases"
		c.ns, c.name = []string{"kube-node-lease", "kube-node-lease", "kube-system"}[r.Intn(3)], naPick(r, naNodes)
		if c.op != admission.Delete {
			c.obj, c.internal = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: c.ns, Name: naPick(r, naNodes)}}, &coordination.Lease{}
			if c.op == admission.Create {
				c.name = ""
			} else {
				c.old, c.internOld = c.obj.DeepCopyObject(), &coordination.Lease{}
			}
		}
	default:
		c.resource, c.ns, c.name = naPick(r, []string{"configmaps", "services", "serviceaccounts"}), "ns1", name
	}
	if c.obj != nil {
		toInternal(t, c.obj, c.internal)
	} else {
		c.internal = nil
	}
	if c.old != nil {
		toInternal(t, c.old, c.internOld)
	} else {
		c.internOld = nil
	}
	return c
}

type allowAll struct{}

func (allowAll) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionAllow, "", nil
}

// TestNodeRestrictionMatchesUpstream admits random node, pod, eviction,
// lease and other writes of node identities and others through ours and
// upstream's NodeRestriction (the same pods and nodes in their listers)
// and compares the errors (the same pods in upstream's pods informer and
// our records). Token requests are left out: svcplane serves
// no serviceaccounts/token, and upstream's audience check needs CSI
// drivers, PVCs and PVs svcplane does not serve either.
func TestNodeRestrictionMatchesUpstream(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	for _, n := range naNodes[:2] {
		_ = f.Core().V1().Nodes().Informer().GetStore().Add(nrNode(r, n))
	}
	for _, name := range naNames {
		p := nrPod(r, name)
		p.Spec.NodeName = naPick(r, naNodes)
		// Upstream reads the pods informer, ours the server's records.
		_ = f.Core().V1().Pods().Informer().GetStore().Add(p)
		_ = node.PodRecordInformer(f).GetStore().Add(node.RecordPod(p))
	}
	ours := noderestriction.New()
	ours.SetExternalKubeInformerFactory(f)
	theirs := upstreamnr.NewPlugin(nodeidentifier.NewDefaultNodeIdentifier())
	theirs.InspectFeatureGates(utilfeature.DefaultFeatureGate)
	theirs.SetExternalKubeInformerFactory(f)
	theirs.SetAuthorizer(allowAll{})
	for _, err := range []error{ours.ValidateInitialization(), theirs.ValidateInitialization()} {
		if err != nil {
			t.Fatal(err)
		}
	}
	refused, total := 0, 0
	for i := 0; i < 3000; i++ {
		c := randomNRCase(t, r)
		u := randomNodeUser(r)
		e1 := ours.Admit(context.Background(), c.attrs(u, c.obj, c.old), nil)
		e2 := theirs.Admit(context.Background(), c.attrs(u, c.internal, c.internOld), nil)
		total++
		if e1 != nil {
			refused++
		}
		if fmt.Sprint(e1) != fmt.Sprint(e2) {
			t.Errorf("%s %s %s/%s %s/%s (%s):\n ours     %v\n upstream %v", u.GetName(), c.op, c.group, c.resource, c.ns, c.name, c.sub, e1, e2)
		}
	}
	t.Logf("%d requests, %d refused", total, refused)
	if refused == 0 || refused == total {
		t.Errorf("the random writes are all admitted alike (%d of %d refused)", refused, total)
	}
}
