package drift

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/auth/nodeidentifier"
	upstreamnode "k8s.io/kubernetes/plugin/pkg/auth/authorizer/node"
	upstreambootstrap "k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac/bootstrappolicy"

	"github.com/svcplane/svcplane/internal/auth/node"
)

// The vocabulary of the random pods and requests: few names, so that
// requests often meet what pods refer to.
var (
	naNodes = []string{"n1", "n2", "n3"}
	naNS    = []string{"ns1", "ns2"}
	naNames = []string{"a", "b", "c"}
)

func naPick(r *rand.Rand, from []string) string { return from[r.Intn(len(from))] }

// randomNodePod is a pod (bound to a random node, or not; sometimes a
// mirror pod) that refers to random Secrets, ConfigMaps, a
// ServiceAccount, PVCs, ephemeral volumes and resource claims by every
// way a pod can.
func randomNodePod(r *rand.Rand, ns, name string) *corev1.Pod {
	n := func() string { return naPick(r, naNames) }
	local := func() corev1.LocalObjectReference { return corev1.LocalObjectReference{Name: n()} }
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(fmt.Sprint(r.Intn(3)))}}
	if r.Intn(4) != 0 {
		p.Spec.NodeName = naPick(r, naNodes)
	}
	if r.Intn(8) == 0 {
		p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "x"}
	}
	if r.Intn(2) == 0 {
		p.Spec.ServiceAccountName = n()
	}
	if r.Intn(4) == 0 {
		p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{local()}
	}
	c := corev1.Container{Name: "c", Image: "img", Env: []corev1.EnvVar{{Name: "PLAIN", Value: "v"}}}
	switch r.Intn(5) {
	case 0:
		c.EnvFrom = []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: local()}}}
	case 1:
		c.EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: local()}}}
	case 2:
		c.Env = append(c.Env, corev1.EnvVar{Name: "X", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: local()}}})
	case 3:
		c.Env = []corev1.EnvVar{{Name: "X", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: local()}}}}
	}
	switch r.Intn(3) {
	case 0:
		p.Spec.InitContainers = []corev1.Container{c}
	case 1:
		p.Spec.Containers = []corev1.Container{c}
	default:
		p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon(c)}}
	}
	for i := r.Intn(3); i > 0; i-- {
		v := corev1.Volume{Name: n()}
		switch r.Intn(9) {
		case 0:
			v.Secret = &corev1.SecretVolumeSource{SecretName: n()}
		case 1:
			v.ConfigMap = &corev1.ConfigMapVolumeSource{LocalObjectReference: local()}
		case 2:
			v.Projected = &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{Secret: &corev1.SecretProjection{LocalObjectReference: local()}},
				{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: local()}}}}
		case 3:
			v.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: n()}
		case 4:
			v.Ephemeral = &corev1.EphemeralVolumeSource{}
		case 5:
			ref := local()
			v.CSI = &corev1.CSIVolumeSource{Driver: "d", NodePublishSecretRef: &ref}
		case 6:
			v.EmptyDir = &corev1.EmptyDirVolumeSource{}
		case 7:
			v.Projected = &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{
				{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}},
				{DownwardAPI: &corev1.DownwardAPIProjection{}}}}
		default:
			ref := local()
			v.RBD = &corev1.RBDVolumeSource{SecretRef: &ref}
		}
		p.Spec.Volumes = append(p.Spec.Volumes, v)
	}
	if r.Intn(3) == 0 {
		claim, status := n(), n()
		p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "x", ResourceClaimName: &claim}, {Name: "y", ResourceClaimTemplateName: &claim}}
		if r.Intn(2) == 0 {
			p.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "y", ResourceClaimName: &status}}
		}
	}
	return p
}

var (
	naResources = []struct{ group, resource string }{
		{"", "secrets"}, {"", "configmaps"}, {"", "pods"}, {"", "nodes"}, {"", "persistentvolumeclaims"},
		{"", "persistentvolumes"}, {"", "serviceaccounts"}, {"coordination.k8s.io", "leases"},
		{"resource.k8s.io", "resourceslices"}, {"resource.k8s.io", "resourceclaims"},
		{"storage.k8s.io", "volumeattachments"}, {"storage.k8s.io", "csinodes"},
		{"certificates.k8s.io", "podcertificaterequests"}, {"", "events"}, {"events.k8s.io", "events"},
		{"", "services"}, {"", "endpoints"}, {"discovery.k8s.io", "endpointslices"},
		{"authentication.k8s.io", "tokenreviews"}, {"", "namespaces"},
	}
	naVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"}
	naSubs  = []string{"status", "token", "eviction", "binding", "log"}
)

func randomNodeUser(r *rand.Rand) user.Info {
	switch r.Intn(10) {
	case 0:
		return &user.DefaultInfo{Name: "alice", Groups: []string{user.NodesGroup}}
	case 1:
		return &user.DefaultInfo{Name: "system:node:n1", Groups: []string{"devs"}}
	case 2:
		return &user.DefaultInfo{Name: "system:node:", Groups: []string{user.NodesGroup}}
	}
	return &user.DefaultInfo{Name: "system:node:" + naPick(r, naNodes), Groups: []string{user.NodesGroup, user.AllAuthenticated}}
}

func randomNodeRequest(r *rand.Rand) authorizer.AttributesRecord {
	a := authorizer.AttributesRecord{User: randomNodeUser(r), Verb: naPick(r, naVerbs)}
	if r.Intn(10) == 0 {
		a.Path = []string{"/healthz", "/api", "/version"}[r.Intn(3)]
		return a
	}
	a.ResourceRequest = true
	res := naResources[r.Intn(len(naResources))]
	a.APIGroup, a.Resource = res.group, res.resource
	if r.Intn(3) == 0 {
		a.Subresource = naPick(r, naSubs)
	}
	if r.Intn(4) != 0 {
		a.Namespace = []string{"ns1", "ns2", "kube-node-lease", "kube-system"}[r.Intn(4)]
	}
	if r.Intn(4) != 0 {
		a.Name = naPick(r, append(append([]string{}, naNames...), naNodes...))
	}
	if r.Intn(3) == 0 {
		sel := fields.OneTermEqualSelector([]string{"spec.nodeName", "metadata.name"}[r.Intn(2)], naPick(r, naNodes))
		if r.Intn(4) == 0 {
			sel = fields.OneTermNotEqualSelector("spec.nodeName", naPick(r, naNodes))
		}
		a.FieldSelectorRequirements = sel.Requirements()
	}
	return a
}

func newUpstreamNodeAuthorizer(g *upstreamnode.Graph) *upstreamnode.NodeAuthorizer {
	return upstreamnode.NewAuthorizer(g, nodeidentifier.NewDefaultNodeIdentifier(), upstreambootstrap.NodeRules())
}

// compareNodeAuthorizers runs n random requests through both and reports
// how many ours allowed.
func compareNodeAuthorizers(t *testing.T, r *rand.Rand, round string, ours *node.Authorizer, theirs *upstreamnode.NodeAuthorizer, n int) int {
	t.Helper()
	allowed := 0
	for q := 0; q < n; q++ {
		a := randomNodeRequest(r)
		d1, r1, e1 := ours.Authorize(context.Background(), a)
		d2, r2, e2 := theirs.Authorize(context.Background(), a)
		if d1 == authorizer.DecisionAllow {
			allowed++
		}
		if d1 != d2 || r1 != r2 || (e1 == nil) != (e2 == nil) {
			t.Errorf("%s, %s %+v:\n ours     %v %q %v\n upstream %v %q %v", round, a.User.GetName(), a, d1, r1, e1, d2, r2, e2)
		}
	}
	return allowed
}

// TestNodeAuthorizerMatchesUpstream feeds the same random pods (adds,
// re-adds and deletes) to svcplane's graph and upstream's and compares the
// two authorizers' decisions and reasons on random requests of nodes and
// others. Upstream gets bootstrappolicy.NodeRules, ours the embedded
// policy's system:node ClusterRole; our graph gets the pods' records
// (node.RecordPod, the server's pods informer transform), upstream's the
// whole pods.
func TestNodeAuthorizerMatchesUpstream(t *testing.T) {
	if got, want := fmt.Sprint(node.StaticRules()), fmt.Sprint(upstreambootstrap.NodeRules()); got != want {
		t.Fatalf("system:node rules differ:\n ours     %s\n upstream %s", got, want)
	}
	r := rand.New(rand.NewSource(1))
	allowed, total := 0, 0
	for round := 0; round < 100; round++ {
		ourGraph, theirGraph := node.NewGraph(), upstreamnode.NewGraph()
		ours, theirs := node.New(ourGraph, node.StaticRules()), newUpstreamNodeAuthorizer(theirGraph)
		for step := 0; step < 30; step++ {
			ns, name := naPick(r, naNS), naPick(r, naNames)
			if r.Intn(4) == 0 {
				ourGraph.DeletePod(ns, name)
				theirGraph.DeletePod(name, ns)
			} else if p := randomNodePod(r, ns, name); p.Spec.NodeName != "" {
				// Ours is fed as the server feeds it: the pod's record.
				ourGraph.AddPod(node.RecordPod(p.DeepCopy()))
				theirGraph.AddPod(p)
			}
			if step%10 == 9 {
				allowed += compareNodeAuthorizers(t, r, fmt.Sprintf("round %d step %d", round, step), ours, theirs, 50)
				total += 50
			}
		}
	}
	t.Logf("%d requests, %d allowed", total, allowed)
	if allowed == 0 || allowed == total {
		t.Errorf("the random requests are all decided alike (%d of %d allowed)", allowed, total)
	}
}

// TestNodeGraphPopulatorMatchesUpstream feeds both graphs from one client's
// pods (the populators' add, update and delete handlers, with their rules
// for which updates re-add a pod; ours through the server's informer of
// pod records, upstream's through a pods informer) and compares the
// authorizers.
func TestNodeGraphPopulatorMatchesUpstream(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	ourGraph, theirGraph := node.NewGraph(), upstreamnode.NewGraph()
	synced, err := node.AddGraphEventHandlers(ourGraph, node.PodRecordInformer(factory))
	if err != nil {
		t.Fatal(err)
	}
	// Upstream's handlers run on their own listener; a last handler on a
	// third listener tells when an event has reached every listener
	// (each listener gets the events in order, so we wait for a marker).
	marks := make(chan string, 100)
	reg, _ := factory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if p := obj.(*corev1.Pod); p.Namespace == "marker" {
				marks <- p.Name
			}
		},
	})
	upstreamnode.AddGraphEventHandlers(theirGraph, factory.Core().V1().Nodes(), factory.Core().V1().Pods(),
		factory.Core().V1().PersistentVolumes(), factory.Storage().V1().VolumeAttachments(), nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), synced, reg.HasSynced) {
		t.Fatal("informer did not sync")
	}
	ours, theirs := node.New(ourGraph, node.StaticRules()), newUpstreamNodeAuthorizer(theirGraph)
	pods := client.CoreV1().Pods
	allowed := 0
	for round := 0; round < 20; round++ {
		for step := 0; step < 10; step++ {
			ns, name := naPick(r, naNS), naPick(r, naNames)
			p := randomNodePod(r, ns, name)
			_, getErr := pods(ns).Get(ctx, name, metav1.GetOptions{})
			switch {
			case getErr != nil:
				_, err = pods(ns).Create(ctx, p, metav1.CreateOptions{})
			case r.Intn(3) == 0:
				err = pods(ns).Delete(ctx, name, metav1.DeleteOptions{})
			default:
				_, err = pods(ns).Update(ctx, p, metav1.UpdateOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		// The marker pod's add comes after every change above on each
		// listener; wait for it on ours and upstream's by polling a request
		// only the marker allows.
		marker := fmt.Sprint("m", round)
		if _, err := pods("marker").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "marker", Name: marker},
			Spec: corev1.PodSpec{NodeName: "n1"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		<-marks
		get := authorizer.AttributesRecord{User: &user.DefaultInfo{Name: "system:node:n1", Groups: []string{user.NodesGroup}},
			Verb: "get", Resource: "pods", Namespace: "marker", Name: marker, ResourceRequest: true}
		if err := wait.PollUntilContextTimeout(ctx, time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			d1, _, _ := ours.Authorize(ctx, get)
			d2, _, _ := theirs.Authorize(ctx, get)
			return d1 == authorizer.DecisionAllow && d2 == authorizer.DecisionAllow, nil
		}); err != nil {
			t.Fatalf("round %d: the marker pod did not reach both graphs", round)
		}
		allowed += compareNodeAuthorizers(t, r, fmt.Sprintf("informer round %d", round), ours, theirs, 100)
	}
	if allowed == 0 {
		t.Error("no request allowed")
	}
}
