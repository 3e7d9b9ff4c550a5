package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	discoveryfake "k8s.io/client-go/discovery/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/svcplane/svcplane/internal/testutil"
)

var widgetGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

func resourceList(gv string, names ...string) *metav1.APIResourceList {
	l := &metav1.APIResourceList{GroupVersion: gv}
	for _, n := range names {
		n, kind, _ := strings.Cut(n, "=")
		verbs := metav1.Verbs{"create", "delete", "get", "list", "patch", "update", "watch"}
		if n == "tokenreviews" {
			verbs = metav1.Verbs{"create"}
		}
		l.APIResources = append(l.APIResources, metav1.APIResource{Name: n, Kind: kind, Namespaced: true, Verbs: verbs})
	}
	return l
}

// fakeDiscovery serves lists; failing, when set, makes those group
// versions fail (as an aggregated API that does not answer).
type fakeDiscovery struct {
	*discoveryfake.FakeDiscovery
	mu      sync.Mutex
	failing map[schema.GroupVersion]error
	down    bool
}

func newFakeDiscovery(lists ...*metav1.APIResourceList) *fakeDiscovery {
	d := &fakeDiscovery{FakeDiscovery: &discoveryfake.FakeDiscovery{Fake: &clienttesting.Fake{}}}
	d.set(lists...)
	d.PrependReactor("get", "resource", func(clienttesting.Action) (bool, runtime.Object, error) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if len(d.failing) > 0 {
			return true, nil, &discovery.ErrGroupDiscoveryFailed{Groups: d.failing}
		}
		return false, nil, nil
	})
	d.PrependReactor("get", "group", func(clienttesting.Action) (bool, runtime.Object, error) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.down {
			return true, nil, errors.New("connection refused")
		}
		return false, nil, nil
	})
	return d
}

func (d *fakeDiscovery) set(lists ...*metav1.APIResourceList) {
	d.Lock()
	defer d.Unlock()
	d.Resources = lists
}

func monitoredNames(c *Collector) []string {
	var out []string
	for _, gvr := range c.monitored() {
		out = append(out, gvr.String())
	}
	sort.Strings(out)
	return out
}

func expectMonitored(t *testing.T, c *Collector, want ...string) {
	t.Helper()
	sort.Strings(want)
	if got := monitoredNames(c); !reflect.DeepEqual(got, want) {
		t.Fatalf("monitored %v, want %v", got, want)
	}
}

func podsAndRS() []*metav1.APIResourceList {
	return []*metav1.APIResourceList{resourceList("v1", "pods", "pods/status"), resourceList("apps/v1", "replicasets"),
		resourceList("authentication.k8s.io/v1", "tokenreviews")}
}

var (
	podsMonitor   = podGVR.String()
	rsMonitor     = rsGVR.String()
	widgetMonitor = widgetGVR.String()
)

// TestRediscoverStartsAndStopsMonitors: resources that appear (a CRD's)
// get a monitor at the next rediscovery, those that go lose it, and their
// objects leave the graph.
func TestRediscoverStartsAndStopsMonitors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := newFakeDiscovery(podsAndRS()...)
	c := New(metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme()), d)
	if _, err := c.rediscover(ctx); err != nil {
		t.Fatal(err)
	}
	expectMonitored(t, c, podsMonitor, rsMonitor)

	d.set(append(podsAndRS(), resourceList("example.com/v1", "widgets=Widget", "widgets/status=Widget", "widgets/scale=Scale"))...)
	testutil.Get(c.rediscover(ctx))(t)
	expectMonitored(t, c, podsMonitor, rsMonitor, widgetMonitor)
	if m, err := c.restMapper().RESTMapping(schema.GroupKind{Group: "example.com", Kind: "Widget"}, "v1"); err != nil || m.Resource != widgetGVR {
		t.Fatalf("mapper after rediscovery: %v %v", m, err)
	}

	// A widget owning a pod is in the graph; the CRD goes.
	w := object(widgetGVR, "Widget", "w")
	pod := object(podGVR, "Pod", "p", metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: w.UID})
	c.observe(widgetGVR, w)
	c.observe(podGVR, pod)
	drain(c)
	d.set(podsAndRS()...)
	testutil.Get(c.rediscover(ctx))(t)
	expectMonitored(t, c, podsMonitor, rsMonitor)
	if c.graph.get(w.UID) != nil {
		t.Fatal("a widget stayed in the graph after its resource went")
	}
	if got := drain(c); !reflect.DeepEqual(got, []string{string(pod.UID)}) {
		t.Fatalf("queued %v, want the widget's dependent", got)
	}
}

// drain empties the queue and returns what was in it.
func drain(c *Collector) []string {
	var out []string
	for c.queue.Len() > 0 {
		uid, _ := c.queue.Get()
		out = append(out, string(uid))
		c.queue.Done(uid)
		c.queue.Forget(uid)
	}
	sort.Strings(out)
	return out
}

// TestRediscoverKeepsMonitorsOfFailingGroups: a group that fails
// discovery keeps its monitors; discovery failing as a whole changes
// nothing.
func TestRediscoverKeepsMonitorsOfFailingGroups(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := newFakeDiscovery(append(podsAndRS(), resourceList("example.com/v1", "widgets"))...)
	c := New(metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme()), d)
	testutil.Get(c.rediscover(ctx))(t)
	expectMonitored(t, c, podsMonitor, rsMonitor, widgetMonitor)

	d.set(podsAndRS()...)
	d.mu.Lock()
	d.failing = map[schema.GroupVersion]error{widgetGVR.GroupVersion(): fmt.Errorf("the server is currently unable to handle the request")}
	d.mu.Unlock()
	testutil.Get(c.rediscover(ctx))(t)
	expectMonitored(t, c, podsMonitor, rsMonitor, widgetMonitor)

	d.mu.Lock()
	d.failing, d.down = nil, true
	d.mu.Unlock()
	if _, err := c.rediscover(ctx); err == nil {
		t.Fatal("discovery down: want an error")
	}
	expectMonitored(t, c, podsMonitor, rsMonitor, widgetMonitor)

	d.mu.Lock()
	d.down = false
	d.mu.Unlock()
	testutil.Get(c.rediscover(ctx))(t)
	expectMonitored(t, c, podsMonitor, rsMonitor)
}

// TestResyncLoopRediscoversEveryPeriod steps a fake clock: nothing changes
// before the period, the new resource is monitored after it.
func TestResyncLoopRediscoversEveryPeriod(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := newFakeDiscovery(podsAndRS()...)
	c := New(metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme()), d)
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	c.clock = clk
	testutil.Get(c.rediscover(ctx))(t)
	done := make(chan struct{})
	go func() { c.resyncLoop(ctx, ResyncPeriod); close(done) }()
	testutil.Eventually(t, 10*time.Second, "the loop waits on its ticker", clk.HasWaiters)

	d.set(append(podsAndRS(), resourceList("example.com/v1", "widgets"))...)
	clk.Step(ResyncPeriod - time.Millisecond)
	expectMonitored(t, c, podsMonitor, rsMonitor)
	clk.Step(time.Millisecond)
	testutil.Eventually(t, 10*time.Second, "widgets monitored after one period", func() bool {
		return len(c.monitored()) == 3
	})
	cancel()
	<-done
}

// TestFirstDiscoveryIsRetried: discovery down when the collector starts
// (the server is still starting) is tried again until it answers.
func TestFirstDiscoveryIsRetried(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	d := newFakeDiscovery(podsAndRS()...)
	d.down = true
	c := New(metadatafake.NewSimpleMetadataClient(metadatafake.NewTestScheme()), d)
	clk := clocktesting.NewFakeClock(time.Unix(0, 0))
	c.clock = clk
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() { s, err := c.firstDiscovery(ctx); done <- result{len(s), err} }()
	testutil.Eventually(t, 10*time.Second, "a retry scheduled", clk.HasWaiters)
	d.mu.Lock()
	d.down = false
	d.mu.Unlock()
	clk.Step(RetryDiscovery)
	r := <-done
	if r.err != nil || r.n != 2 {
		t.Fatalf("first discovery: %d monitors, %v", r.n, r.err)
	}
	expectMonitored(t, c, podsMonitor, rsMonitor)
}
