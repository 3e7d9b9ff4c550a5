package garbagecollector

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/svcplane/svcplane/internal/testutil"
)

// TestSharedInformerServesItsResource: a resource the controller
// manager's typed informers already serve (pods here) is watched through
// that informer, not a metadata informer of the collector's own; the
// others (replicasets) still get one. Stopping the monitor takes the
// collector's handler off the shared informer, which keeps running.
func TestSharedInformerServesItsResource(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "p-uid",
		OwnerReferences: []metav1.OwnerReference{ownedBy("gone", false)}}}
	typed := fake.NewClientset(pod)
	factory := informers.NewSharedInformerFactory(typed, 0)
	pods := factory.Core().V1().Pods().Informer() // as a controller asks for it
	factory.Start(ctx.Done())
	started := make(chan struct{})
	close(started)

	meta := metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme())
	lists := func(pods bool) []*metav1.APIResourceList {
		core := resourceList("v1", "pods=Pod", "pods/status=Pod")
		if !pods {
			core = resourceList("v1")
		}
		return []*metav1.APIResourceList{core, resourceList("apps/v1", "replicasets=ReplicaSet")}
	}
	d := newFakeDiscovery(lists(true)...)
	c := New(meta, d).WithShared(Shared{Factory: factory, Started: started})
	if !c.loadShared(ctx) {
		t.Fatal("loadShared gave up")
	}
	synced := testutil.Get(c.rediscover(ctx))(t)
	expectMonitored(t, c, podsMonitor, rsMonitor)
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		t.Fatal("monitors not synced")
	}
	if n := c.graph.get(pod.UID); n == nil || n.gvr != podGVR || len(n.owners) != 1 {
		t.Fatalf("the pod is not in the graph as the shared informer shows it: %+v", n)
	}
	watched := map[string]bool{}
	for _, a := range meta.Actions() {
		if a.GetVerb() == "list" || a.GetVerb() == "watch" {
			watched[a.GetResource().Resource] = true
		}
	}
	if watched["pods"] || !watched["replicasets"] {
		t.Fatalf("metadata client listed/watched %v; want replicasets only (pods come from the shared informer)", watched)
	}

	// Pods leave discovery: the monitor stops, the handler comes off, the
	// pod leaves the graph; a later pod is not observed.
	d.set(lists(false)...)
	testutil.Get(c.rediscover(ctx))(t)
	expectMonitored(t, c, rsMonitor)
	if c.graph.get(pod.UID) != nil {
		t.Fatal("the pod stayed in the graph after its monitor stopped")
	}
	later := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "q", Namespace: "ns", UID: "q-uid"}}
	if _, err := typed.CoreV1().Pods("ns").Create(ctx, later, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
		_, ok, _ := pods.GetStore().GetByKey("ns/q")
		return ok, nil
	}); err != nil {
		t.Fatal("the shared informer stopped with the monitor")
	}
	if c.graph.get(later.UID) != nil {
		t.Fatal("a pod created after the monitor stopped reached the graph")
	}
}
