package deployment

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

// fixture is a controller on a fake clientset whose listers hold exactly
// the objects given (no informer goroutines).
type fixture struct {
	t      *testing.T
	client *fake.Clientset
	c      *Controller
}

func newFixture(t *testing.T, objs ...runtime.Object) *fixture {
	client := fake.NewClientset(objs...)
	inf := informers.NewSharedInformerFactory(client, 0)
	c := New(client, inf.Apps().V1().Deployments(), inf.Apps().V1().ReplicaSets(), testingclock.NewFakeClock(time.Unix(1000, 0)))
	for _, o := range objs {
		switch o := o.(type) {
		case *appsv1.Deployment:
			_ = inf.Apps().V1().Deployments().Informer().GetIndexer().Add(o)
		case *appsv1.ReplicaSet:
			_ = inf.Apps().V1().ReplicaSets().Informer().GetIndexer().Add(o)
		}
	}
	client.ClearActions()
	return &fixture{t: t, client: client, c: c}
}

func (f *fixture) sync(key string) {
	f.t.Helper()
	if err := f.c.sync(context.Background(), key); err != nil {
		f.t.Fatalf("sync %s: %v", key, err)
	}
}

// actions renders the recorded writes as "verb resource[/sub] name=replicas".
func (f *fixture) actions() []string {
	var out []string
	for _, a := range f.client.Actions() {
		if a.GetVerb() == "list" || a.GetVerb() == "watch" || a.GetVerb() == "get" {
			continue
		}
		s := a.GetVerb() + " " + a.GetResource().Resource
		if a.GetSubresource() != "" {
			s += "/" + a.GetSubresource()
		}
		switch a := a.(type) {
		case clienttesting.CreateAction:
			s += " " + describe(a.GetObject())
		case clienttesting.UpdateAction:
			s += " " + describe(a.GetObject())
		case clienttesting.DeleteAction:
			s += " " + a.GetName()
		}
		out = append(out, s)
	}
	return out
}

func describe(o runtime.Object) string {
	switch o := o.(type) {
	case *appsv1.ReplicaSet:
		return fmt.Sprintf("%s=%d", o.Name, *o.Spec.Replicas)
	case *appsv1.Deployment:
		return o.Name
	}
	return fmt.Sprintf("%T", o)
}

func (f *fixture) expect(want ...string) {
	f.t.Helper()
	if got := f.actions(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		f.t.Fatalf("actions:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func deploymentOf(replicas int32, image string, mut ...func(*appsv1.Deployment)) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "d-uid", Generation: 1},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image}}}},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(3)), MaxUnavailable: ptr.To(intstr.FromInt32(2))}},
		},
	}
	for _, m := range mut {
		m(d)
	}
	return d
}

// rsOf is d's ReplicaSet for image, sized replicas (all available) when d
// wanted desired (max-replicas desired+3), at revision rev, created at age.
func rsOf(d *appsv1.Deployment, image string, replicas, desired int32, rev, created int) *appsv1.ReplicaSet {
	tmpl := *d.Spec.Template.DeepCopy()
	tmpl.Spec.Containers[0].Image = image
	hash := TemplateHash(&tmpl, nil)
	tmpl.Labels = map[string]string{"app": "web", HashLabel: hash}
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web-" + hash, Namespace: "ns", UID: types.UID("rs-" + image),
			CreationTimestamp: metav1.NewTime(time.Unix(int64(created), 0)), Labels: tmpl.Labels,
			OwnerReferences: []metav1.OwnerReference{controllerRef(d)},
			Annotations: map[string]string{RevisionAnnotation: strconv.Itoa(rev),
				DesiredReplicasAnnotation: strconv.Itoa(int(desired)), MaxReplicasAnnotation: strconv.Itoa(int(desired + 3))}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas), Template: tmpl,
			Selector: &metav1.LabelSelector{MatchLabels: tmpl.Labels}},
		Status: appsv1.ReplicaSetStatus{Replicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas},
	}
}

func TestNewDeploymentCreatesItsReplicaSetAndScalesIt(t *testing.T) {
	d := deploymentOf(5, "v1")
	f := newFixture(t, d)
	f.sync("ns/web")
	name := rsOf(d, "v1", 0, 0, 1, 0).Name
	// Created at its size, as upstream (no second write).
	f.expect("create replicasets "+name+"=5", "update deployments/status web")
	created := f.client.Actions()[0].(clienttesting.CreateAction).GetObject().(*appsv1.ReplicaSet)
	if created.Annotations[RevisionAnnotation] != "1" || created.Spec.Selector.MatchLabels[HashLabel] == "" ||
		!metav1.IsControlledBy(created, d) {
		t.Fatalf("new ReplicaSet: annotations %v selector %v owners %v", created.Annotations, created.Spec.Selector, created.OwnerReferences)
	}
	// The Deployment carries its revision too (upstream's
	// SetDeploymentRevision), written with its status.
	actions := f.client.Actions()
	written := actions[len(actions)-1].(clienttesting.UpdateAction).GetObject().(*appsv1.Deployment)
	if written.Annotations[RevisionAnnotation] != "1" {
		t.Fatalf("deployment annotations after the first sync: %v", written.Annotations)
	}
}

func TestRollingUpdateKeepsWithinSurgeAndUnavailable(t *testing.T) {
	d := deploymentOf(10, "v2")
	old := rsOf(d, "v1", 10, 10, 1, 100)
	f := newFixture(t, d, old)
	f.sync("ns/web")
	newName := rsOf(d, "v2", 0, 0, 2, 0).Name
	// 10 + surge 3 = 13 pods at most: the new one gets 3; 10 - 2 = 8 must
	// stay available: the old one goes to 8.
	f.expect("create replicasets "+newName+"=3",
		"update replicasets "+old.Name+"=8", "update deployments/status web")
}

// The ReplicaSets a sync scales are its own copies, not the lister's
// (client-go's rule; KUBE_CACHE_MUTATION_DETECTOR found the controller
// writing the server's answer over the cached one).
func TestSyncLeavesTheListersReplicaSetsAlone(t *testing.T) {
	d := deploymentOf(10, "v2")
	old := rsOf(d, "v1", 10, 10, 1, 100)
	want := old.DeepCopy()
	f := newFixture(t, d, old)
	f.sync("ns/web")
	f.expect("create replicasets "+rsOf(d, "v2", 0, 0, 2, 0).Name+"=3",
		"update replicasets "+old.Name+"=8", "update deployments/status web")
	if !equality.Semantic.DeepEqual(old, want) {
		t.Errorf("the sync changed the lister's ReplicaSet:\n got %+v\nwant %+v", old, want)
	}
}

// TestProportionalScaling is the example of the Deployment docs: 10
// replicas, maxSurge 3, maxUnavailable 2, mid-rollout with 8 old and 5 new
// pods; scaled to 15, the 5 extra replicas go 3 to the old and 2 to the new
// ReplicaSet.
func TestProportionalScaling(t *testing.T) {
	d := deploymentOf(15, "v2")
	old := rsOf(d, "v1", 8, 10, 1, 100)
	cur := rsOf(d, "v2", 5, 10, 2, 200)
	cur.Status.AvailableReplicas = 0
	f := newFixture(t, d, old, cur)
	f.sync("ns/web")
	f.expect("update replicasets "+old.Name+"=11", "update replicasets "+cur.Name+"=7", "update deployments/status web")

	// Scaling down to 2 mid-rollout: allowed 5 (2+3), 13 → 5, larger first.
	d = deploymentOf(2, "v2")
	f = newFixture(t, d, old, cur)
	f.sync("ns/web")
	f.expect("update replicasets "+old.Name+"=3", "update replicasets "+cur.Name+"=2", "update deployments/status web")
}

func TestScaleWithOneActiveReplicaSetTakesTheWholeCount(t *testing.T) {
	d := deploymentOf(2, "v1")
	cur := rsOf(d, "v1", 10, 10, 1, 100)
	f := newFixture(t, d, cur)
	f.sync("ns/web")
	f.expect("update replicasets "+cur.Name+"=2", "update deployments/status web")
}

func TestPausedDeploymentDoesNotRollOut(t *testing.T) {
	d := deploymentOf(3, "v2", func(d *appsv1.Deployment) { d.Spec.Paused = true })
	old := rsOf(d, "v1", 3, 3, 1, 100)
	f := newFixture(t, d, old)
	f.sync("ns/web")
	f.expect("update deployments/status web")
	st := f.client.Actions()[0].(clienttesting.UpdateAction).GetObject().(*appsv1.Deployment).Status
	if c := condition(&st, appsv1.DeploymentProgressing); c != nil {
		t.Fatalf("no new ReplicaSet yet, so no Progressing condition; got %+v", c)
	}
}

func TestRevisionHistoryLimitPrunesOldestIdleReplicaSets(t *testing.T) {
	d := deploymentOf(1, "v4", func(d *appsv1.Deployment) { d.Spec.RevisionHistoryLimit = ptr.To(int32(1)) })
	cur := rsOf(d, "v4", 1, 1, 4, 400)
	idle := []*appsv1.ReplicaSet{rsOf(d, "v1", 0, 1, 1, 100), rsOf(d, "v2", 0, 1, 2, 200), rsOf(d, "v3", 0, 1, 3, 300)}
	for _, rs := range idle {
		rs.Status = appsv1.ReplicaSetStatus{}
	}
	f := newFixture(t, d, cur, idle[0], idle[1], idle[2])
	f.sync("ns/web")
	f.expect("delete replicasets "+idle[0].Name, "delete replicasets "+idle[1].Name, "update deployments/status web")
}

func TestRecreateWaitsForOldPodsToGo(t *testing.T) {
	recreate := func(d *appsv1.Deployment) {
		d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	}
	d := deploymentOf(3, "v2", recreate)
	old := rsOf(d, "v1", 3, 3, 1, 100)
	cur := rsOf(d, "v2", 0, 3, 2, 200)
	cur.Annotations[MaxReplicasAnnotation] = "3"
	old.Annotations[MaxReplicasAnnotation] = "3"
	f := newFixture(t, d, old, cur)
	f.sync("ns/web")
	// Old scaled to 0 but its pods still run: the new one stays at 0.
	f.expect("update replicasets "+old.Name+"=0", "update deployments/status web")

	old.Spec.Replicas, old.Status = ptr.To(int32(0)), appsv1.ReplicaSetStatus{}
	f = newFixture(t, d, old, cur)
	f.sync("ns/web")
	f.expect("update replicasets "+cur.Name+"=3", "update deployments/status web")
}

func TestAvailableConditionFollowsMinimumAvailability(t *testing.T) {
	d := deploymentOf(4, "v1")
	cur := rsOf(d, "v1", 4, 4, 1, 100)
	cur.Annotations[MaxReplicasAnnotation] = "7"
	cur.Status.AvailableReplicas = 1 // 4 - maxUnavailable 2 = 2 needed
	f := newFixture(t, d, cur)
	f.sync("ns/web")
	st := f.client.Actions()[len(f.client.Actions())-1].(clienttesting.UpdateAction).GetObject().(*appsv1.Deployment).Status
	if c := condition(&st, appsv1.DeploymentAvailable); c == nil || c.Status != corev1.ConditionFalse || c.Reason != "MinimumReplicasUnavailable" {
		t.Fatalf("Available: %+v", c)
	}
	if st.UnavailableReplicas != 3 || st.UpdatedReplicas != 4 || st.ObservedGeneration != 1 {
		t.Fatalf("status %+v", st)
	}
}

// TestOwnReplicaSetUnseenByTheCacheIsNoCollision: the new ReplicaSet exists
// (an earlier sync made it) but the controller's cache has not seen it;
// the create's AlreadyExists is not a hash collision: no collisionCount
// bump, the existing ReplicaSet is used (upstream's getNewReplicaSet).
func TestOwnReplicaSetUnseenByTheCacheIsNoCollision(t *testing.T) {
	d := deploymentOf(5, "v1")
	d.UID = "d-uid"
	f := newFixture(t, d)
	rs := rsOf(d, "v1", 0, 5, 1, 0)
	rs.OwnerReferences = []metav1.OwnerReference{controllerRef(d)}
	if err := f.client.Tracker().Add(rs); err != nil { // in the API, not in the cache
		t.Fatal(err)
	}
	f.sync("ns/web")
	for _, a := range f.client.Actions() {
		if u, ok := a.(clienttesting.UpdateAction); ok && a.GetSubresource() == "status" {
			if got := u.GetObject().(*appsv1.Deployment); got.Status.CollisionCount != nil {
				t.Fatalf("collisionCount bumped to %d for the Deployment's own ReplicaSet", *got.Status.CollisionCount)
			}
		}
	}
}
