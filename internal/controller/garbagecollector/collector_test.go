package garbagecollector

import (
	"context"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/restmapper"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/controller/worker"
)

var (
	rsGVR  = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}
	podGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
)

// object is the metadata of one stored object.
func object(gvr schema.GroupVersionResource, kind, name string, owners ...metav1.OwnerReference) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: gvr.GroupVersion().String(), Kind: kind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name + "-uid"), OwnerReferences: owners}}
}

func ownedBy(name string, block bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name, UID: types.UID(name + "-uid"),
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(block)}
}

// newCollector returns a collector over a fake metadata client holding
// stored; the graph holds inGraph (what the informers have seen).
func newCollector(stored []*metav1.PartialObjectMetadata, inGraph ...*metav1.PartialObjectMetadata) (*Collector, *metadatafake.FakeMetadataClient) {
	scheme := metadatafake.NewTestScheme()
	_ = metav1.AddMetaToScheme(scheme)
	objs := make([]runtime.Object, len(stored))
	for i, o := range stored {
		objs[i] = o
	}
	client := metadatafake.NewSimpleMetadataClient(scheme, objs...)
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}, meta.RESTScopeNamespace)
	mapper.Add(schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, meta.RESTScopeNamespace)
	c := New(client, nil)
	c.setMapper(mapper)
	for _, o := range inGraph {
		gvr := podGVR
		if o.Kind == "ReplicaSet" {
			gvr = rsGVR
		}
		c.observe(gvr, o)
	}
	return c, client
}

// writes renders the client's writes as "verb resource name detail".
func writes(client *metadatafake.FakeMetadataClient) []string {
	var out []string
	for _, a := range client.Actions() {
		switch a := a.(type) {
		case clienttesting.DeleteAction:
			opts := a.GetDeleteOptions()
			out = append(out, "delete "+a.GetResource().Resource+" "+a.GetName()+" "+string(*opts.PropagationPolicy)+" uid="+string(*opts.Preconditions.UID))
		case clienttesting.PatchAction:
			var p struct {
				Metadata struct {
					Owners     *[]metav1.OwnerReference `json:"ownerReferences"`
					Finalizers *[]string                `json:"finalizers"`
				} `json:"metadata"`
			}
			_ = json.Unmarshal(a.GetPatch(), &p)
			detail := ""
			if p.Metadata.Owners != nil {
				var names []string
				for _, o := range *p.Metadata.Owners {
					names = append(names, o.Name)
				}
				detail = "owners=[" + strings.Join(names, ",") + "]"
			}
			if p.Metadata.Finalizers != nil {
				detail = "finalizers=[" + strings.Join(*p.Metadata.Finalizers, ",") + "]"
			}
			out = append(out, "patch "+a.GetResource().Resource+" "+a.GetName()+" "+detail)
		}
	}
	sort.Strings(out)
	return out
}

func expectWrites(t *testing.T, client *metadatafake.FakeMetadataClient, want ...string) {
	t.Helper()
	sort.Strings(want)
	if got := writes(client); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("writes:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func process(t *testing.T, c *Collector, uid types.UID) bool {
	t.Helper()
	retry, err := c.process(context.Background(), uid)
	if err != nil {
		t.Fatalf("process %s: %v", uid, err)
	}
	return retry
}

func TestDependentOfAGoneOwnerIsDeletedInTheBackground(t *testing.T) {
	pod := object(podGVR, "Pod", "p", ownedBy("rs", true))
	c, client := newCollector([]*metav1.PartialObjectMetadata{pod}, pod)
	process(t, c, pod.UID)
	expectWrites(t, client, "delete pods p Background uid=p-uid")
}

// The dependents of one gone owner ask the server about it once (upstream's
// absentOwnerCache).
func TestGoneOwnerIsLookedUpOnce(t *testing.T) {
	p1, p2 := object(podGVR, "Pod", "p1", ownedBy("rs", true)), object(podGVR, "Pod", "p2", ownedBy("rs", true))
	c, client := newCollector([]*metav1.PartialObjectMetadata{p1, p2}, p1, p2)
	process(t, c, p1.UID)
	process(t, c, p2.UID)
	expectWrites(t, client, "delete pods p1 Background uid=p1-uid", "delete pods p2 Background uid=p2-uid")
	gets := 0
	for _, a := range client.Actions() {
		if a.GetVerb() == "get" {
			gets++
		}
	}
	if gets != 1 {
		t.Errorf("%d GETs of the gone owner, want 1", gets)
	}
}

// TestOwnerWithTheSameNameButAnotherUIDIsGone: an owner re-created under
// the same name is not the owner.
func TestOwnerWithTheSameNameButAnotherUIDIsGone(t *testing.T) {
	pod := object(podGVR, "Pod", "p", ownedBy("rs", true))
	impostor := object(rsGVR, "ReplicaSet", "rs")
	impostor.UID = "other-uid"
	c, client := newCollector([]*metav1.PartialObjectMetadata{pod, impostor}, pod)
	process(t, c, pod.UID)
	expectWrites(t, client, "delete pods p Background uid=p-uid")
}

func TestLivingOwnerKeepsItsDependent(t *testing.T) {
	rs := object(rsGVR, "ReplicaSet", "rs")
	pod := object(podGVR, "Pod", "p", ownedBy("rs", true))
	// The graph has not seen the owner yet: the server is asked.
	c, client := newCollector([]*metav1.PartialObjectMetadata{rs, pod}, pod)
	process(t, c, pod.UID)
	expectWrites(t, client)
}

func TestOnlyTheGoneOwnerIsDropped(t *testing.T) {
	rs := object(rsGVR, "ReplicaSet", "rs")
	pod := object(podGVR, "Pod", "p", ownedBy("rs", true), ownedBy("gone", false))
	c, client := newCollector([]*metav1.PartialObjectMetadata{rs, pod}, rs, pod)
	process(t, c, pod.UID)
	expectWrites(t, client, "patch pods p owners=[rs]")
}

// TestUnknownOwnerKindIsRetried: an owner of a kind the mapper does not
// know (a custom resource created since the last rediscovery) leaves the
// dependent alone for now and retries it with backoff; once the mapper
// knows the kind, a gone owner's dependent is deleted.
func TestUnknownOwnerKindIsRetried(t *testing.T) {
	pod := object(podGVR, "Pod", "p", metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: "w-uid"})
	c, client := newCollector([]*metav1.PartialObjectMetadata{pod}, pod)
	if after, err := c.processKey(context.Background(), pod.UID); err != nil || after != worker.Backoff {
		t.Fatalf("unknown owner kind: delay %v, err %v; want a backoff retry without error", after, err)
	}
	expectWrites(t, client)

	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, meta.RESTScopeNamespace)
	c.setMapper(mapper)
	if after, err := c.processKey(context.Background(), pod.UID); err != nil || after != 0 {
		t.Fatalf("known kind: delay %v, err %v", after, err)
	}
	expectWrites(t, client, "delete pods p Background uid=p-uid")
}

func TestOrphanStripsTheOwnerThenItsFinalizer(t *testing.T) {
	rs := object(rsGVR, "ReplicaSet", "rs")
	rs.DeletionTimestamp, rs.Finalizers = &metav1.Time{}, []string{metav1.FinalizerOrphanDependents, "example.com/other"}
	pods := []*metav1.PartialObjectMetadata{object(podGVR, "Pod", "a", ownedBy("rs", true)), object(podGVR, "Pod", "b", ownedBy("rs", true))}
	c, client := newCollector([]*metav1.PartialObjectMetadata{rs, pods[0], pods[1]}, rs, pods[0], pods[1])
	process(t, c, rs.UID)
	expectWrites(t, client, "patch pods a owners=[]", "patch pods b owners=[]", "patch replicasets rs finalizers=[example.com/other]")
}

func TestForegroundWaitsForBlockingDependents(t *testing.T) {
	rs := object(rsGVR, "ReplicaSet", "rs")
	rs.DeletionTimestamp, rs.Finalizers = &metav1.Time{}, []string{metav1.FinalizerDeleteDependents}
	blocking := object(podGVR, "Pod", "blocking", ownedBy("rs", true))
	c, client := newCollector([]*metav1.PartialObjectMetadata{rs, blocking}, rs, blocking)
	drain(c)
	if !process(t, c, rs.UID) {
		t.Fatal("a blocking dependent must hold the owner back")
	}
	expectWrites(t, client)
	if got := drain(c); !slices.Equal(got, []string{"blocking-uid"}) {
		t.Fatalf("queued %v: the owner's pass looks at its dependents", got)
	}
	// The dependent's own pass: its only owner waits for it → deleted.
	process(t, c, blocking.UID)
	expectWrites(t, client, "delete pods blocking Background uid=blocking-uid")

	// Once the dependent is gone from the graph, the finalizer goes.
	client.ClearActions()
	c.forget(blocking)
	if process(t, c, rs.UID) {
		t.Fatal("nothing blocks any more")
	}
	expectWrites(t, client, "patch replicasets rs finalizers=[]")
}

func TestForegroundDoesNotWaitForNonBlockingDependents(t *testing.T) {
	rs := object(rsGVR, "ReplicaSet", "rs")
	rs.DeletionTimestamp, rs.Finalizers = &metav1.Time{}, []string{metav1.FinalizerDeleteDependents}
	loose := object(podGVR, "Pod", "loose", ownedBy("rs", false))
	c, client := newCollector([]*metav1.PartialObjectMetadata{rs, loose}, rs, loose)
	if process(t, c, rs.UID) {
		t.Fatal("a dependent without blockOwnerDeletion must not block")
	}
	expectWrites(t, client, "patch replicasets rs finalizers=[]")
	process(t, c, loose.UID)
	expectWrites(t, client, "delete pods loose Background uid=loose-uid", "patch replicasets rs finalizers=[]")
}

func TestForegroundPropagatesToDependentsWithDependents(t *testing.T) {
	top := object(rsGVR, "ReplicaSet", "top")
	top.DeletionTimestamp, top.Finalizers = &metav1.Time{}, []string{metav1.FinalizerDeleteDependents}
	mid := object(rsGVR, "ReplicaSet", "mid", ownedBy("top", true))
	leaf := object(podGVR, "Pod", "leaf", ownedBy("mid", true))
	c, client := newCollector([]*metav1.PartialObjectMetadata{top, mid, leaf}, top, mid, leaf)
	if !process(t, c, top.UID) {
		t.Fatal("mid blocks top")
	}
	process(t, c, mid.UID)
	expectWrites(t, client, "delete replicasets mid Foreground uid=mid-uid")
}

// TestForegroundKeepsDependentsWithAnotherOwner: a dependent that also has
// a solid owner only loses its reference to the owner being deleted in the
// foreground (conformance: "should not delete dependents that have both
// valid owner and owner that's waiting for dependents to be deleted").
func TestForegroundKeepsDependentsWithAnotherOwner(t *testing.T) {
	going := object(rsGVR, "ReplicaSet", "going")
	going.DeletionTimestamp, going.Finalizers = &metav1.Time{}, []string{metav1.FinalizerDeleteDependents}
	staying := object(rsGVR, "ReplicaSet", "staying")
	shared := object(podGVR, "Pod", "shared", ownedBy("going", true), ownedBy("staying", false))
	c, client := newCollector([]*metav1.PartialObjectMetadata{going, staying, shared}, going, staying, shared)
	process(t, c, shared.UID)
	expectWrites(t, client, "patch pods shared owners=[staying]")
}

// TestForegroundBreaksCircles: in a circle of blocking owner references
// (p1 → p2 → p3 → p1, p1 deleted in the foreground), an object whose owner
// and dependent both wait for their dependents has its references made
// non-blocking before it is deleted in the foreground (conformance:
// "should not be blocked by dependency circle").
func TestForegroundBreaksCircles(t *testing.T) {
	ref := func(name string) metav1.OwnerReference {
		return metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: name, UID: types.UID(name + "-uid"), BlockOwnerDeletion: ptr.To(true)}
	}
	p1 := object(podGVR, "Pod", "p1", ref("p3"))
	p2 := object(podGVR, "Pod", "p2", ref("p1"))
	p3 := object(podGVR, "Pod", "p3", ref("p2"))
	for _, p := range []*metav1.PartialObjectMetadata{p1, p2} {
		p.DeletionTimestamp, p.Finalizers = &metav1.Time{}, []string{metav1.FinalizerDeleteDependents}
	}
	c, client := newCollector([]*metav1.PartialObjectMetadata{p1, p2, p3}, p1, p2, p3)
	process(t, c, p3.UID)
	expectWrites(t, client, "patch pods p3 owners=[p2]", "delete pods p3 Foreground uid=p3-uid")
	var p struct {
		Metadata struct{ OwnerReferences []metav1.OwnerReference } `json:"metadata"`
	}
	_ = json.Unmarshal(client.Actions()[0].(clienttesting.PatchAction).GetPatch(), &p)
	if b := p.Metadata.OwnerReferences[0].BlockOwnerDeletion; b == nil || *b {
		t.Fatalf("p3's reference to p2 still blocks: %+v", p.Metadata.OwnerReferences)
	}
}

// TestDeletableSkipsEvents: Events (core and events.k8s.io) get no
// monitor, as upstream's collector ignores them; other deletable
// resources of the same groups do, subresources and resources that
// cannot be deleted do not.
func TestDeletableSkipsEvents(t *testing.T) {
	all := []string{"list", "watch", "delete"}
	group := func(name, version string, resources map[string][]string) *restmapper.APIGroupResources {
		g := &restmapper.APIGroupResources{
			Group:              metav1.APIGroup{Name: name, PreferredVersion: metav1.GroupVersionForDiscovery{Version: version}},
			VersionedResources: map[string][]metav1.APIResource{},
		}
		for r, verbs := range resources {
			g.VersionedResources[version] = append(g.VersionedResources[version], metav1.APIResource{Name: r, Verbs: verbs})
		}
		return g
	}
	got := deletable([]*restmapper.APIGroupResources{
		group("", "v1", map[string][]string{"pods": all, "events": all, "pods/status": all, "bindings": {"create"}}),
		group("events.k8s.io", "v1", map[string][]string{"events": all}),
		group("apps", "v1", map[string][]string{"replicasets": all}),
	})
	sort.Slice(got, func(i, j int) bool { return got[i].String() < got[j].String() })
	want := []schema.GroupVersionResource{podGVR, rsGVR}
	if !slices.Equal(got, want) {
		t.Errorf("deletable = %v, want %v", got, want)
	}
}
