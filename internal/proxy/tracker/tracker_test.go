package tracker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"reflect"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/proxy"
)

func service(name string, mutate func(*v1.Service)) *v1.Service {
	s := &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: v1.ServiceSpec{
			Type: v1.ServiceTypeClusterIP, ClusterIP: "10.96.0.10", ClusterIPs: []string{"10.96.0.10", "fd00::10"},
			Ports: []v1.ServicePort{{Name: "http", Port: 80, Protocol: v1.ProtocolTCP}},
		},
	}
	if mutate != nil {
		mutate(s)
	}
	return s
}

func slice(name, svc string, addrs ...string) *discovery.EndpointSlice {
	s := &discovery.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{discovery.LabelServiceName: svc}},
		AddressType: discovery.AddressTypeIPv4,
		Ports:       []discovery.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](8080), Protocol: ptr.To(v1.ProtocolTCP)}},
	}
	for _, a := range addrs {
		s.Endpoints = append(s.Endpoints, discovery.Endpoint{Addresses: []string{a}, NodeName: ptr.To("node-b")})
	}
	return s
}

func TestServicePortsConversion(t *testing.T) {
	svc := service("web", func(s *v1.Service) {
		s.Spec.Type = v1.ServiceTypeLoadBalancer
		s.Spec.Ports[0].NodePort = 30080
		s.Spec.ExternalIPs = []string{"192.0.2.1", "2001:db8::1"}
		s.Spec.ExternalTrafficPolicy = v1.ServiceExternalTrafficPolicyLocal
		s.Spec.HealthCheckNodePort = 31000
		s.Spec.LoadBalancerSourceRanges = []string{"198.51.100.0/24 ", "2001:db8::/32"}
		s.Spec.SessionAffinity = v1.ServiceAffinityClientIP
		s.Status.LoadBalancer.Ingress = []v1.LoadBalancerIngress{{IP: "203.0.113.5"},
			{IP: "203.0.113.6", IPMode: ptr.To(v1.LoadBalancerIPModeProxy)}}
	})
	ports := ServicePorts(svc, proxy.IPv4)
	if len(ports) != 1 {
		t.Fatalf("got %d ports", len(ports))
	}
	p := ports[0]
	if p.ClusterIP.String() != "10.96.0.10" || p.NodePort != 30080 || p.HealthCheckNodePort != 31000 ||
		!p.ExternalPolicyLocal || p.InternalPolicyLocal || p.StickyMaxAgeSeconds != 10800 {
		t.Errorf("bad port: %+v", p)
	}
	if len(p.ExternalIPs) != 1 || len(p.LoadBalancerVIPs) != 1 || p.LoadBalancerVIPs[0].String() != "203.0.113.5" ||
		len(p.LoadBalancerSourceRanges) != 1 {
		t.Errorf("bad addresses: %v %v %v", p.ExternalIPs, p.LoadBalancerVIPs, p.LoadBalancerSourceRanges)
	}
	if v6 := ServicePorts(svc, proxy.IPv6); len(v6) != 1 || v6[0].ClusterIP.String() != "fd00::10" {
		t.Errorf("v6: %+v", v6)
	}
	for _, skip := range []*v1.Service{
		service("headless", func(s *v1.Service) { s.Spec.ClusterIP, s.Spec.ClusterIPs = v1.ClusterIPNone, nil }),
		service("ext", func(s *v1.Service) {
			s.Spec.Type, s.Spec.ClusterIP, s.Spec.ClusterIPs = v1.ServiceTypeExternalName, "", nil
		}),
	} {
		if got := ServicePorts(skip, proxy.IPv4); got != nil {
			t.Errorf("%s: should not be proxied, got %v", skip.Name, got)
		}
	}
}

func TestSlicesMergeAndDedupe(t *testing.T) {
	tr := New(proxy.IPv4, "node-a", nil)
	tr.OnServiceUpdate(key("web"), service("web", nil))
	a := slice("web-a", "web", "10.0.0.1", "10.0.0.2")
	b := slice("web-b", "web", "10.0.0.2", "10.0.0.3")
	b.Endpoints[0].NodeName = ptr.To("node-a") // the duplicate is local here
	b.Endpoints[1].Conditions = discovery.EndpointConditions{Ready: ptr.To(false), Serving: ptr.To(true), Terminating: ptr.To(true)}
	tr.OnEndpointSliceUpdate(a, false)
	tr.OnEndpointSliceUpdate(b, false)
	name := proxy.ServicePortName{Namespace: "ns", Name: "web", Port: "http", Protocol: proxy.TCP}
	eps := tr.Snapshot().Endpoints[name]
	if len(eps) != 3 || !eps[1].IsLocal || eps[2].Ready || !eps[2].Terminating || eps[0].Port != 8080 {
		t.Fatalf("merged endpoints wrong: %+v", eps)
	}
	before := tr.Snapshot()
	tr.OnEndpointSliceUpdate(b, true)
	if got := tr.Snapshot().Endpoints[name]; len(got) != 2 {
		t.Errorf("after deleting slice b: %+v", got)
	}
	if len(before.Endpoints[name]) != 3 {
		t.Errorf("an older snapshot changed: %+v", before.Endpoints[name])
	}
	v6 := slice("web-v6", "web", "fd00::1")
	v6.AddressType = discovery.AddressTypeIPv6
	tr.OnEndpointSliceUpdate(v6, false)
	if got := tr.Snapshot().Endpoints[name]; len(got) != 2 {
		t.Errorf("an IPv6 slice leaked into the IPv4 snapshot: %+v", got)
	}
}

// TestSingleSlice: one slice's endpoints come out sorted and de-duplicated
// (the local copy kept) as a merge of several does.
func TestSingleSlice(t *testing.T) {
	tr := New(proxy.IPv4, "node-a", nil)
	tr.OnServiceUpdate(key("web"), service("web", nil))
	name := proxy.ServicePortName{Namespace: "ns", Name: "web", Port: "http", Protocol: proxy.TCP}
	tr.OnEndpointSliceUpdate(slice("web-a", "web", "10.0.0.3", "10.0.0.1", "10.0.0.2"), false)
	eps := tr.Snapshot().Endpoints[name]
	if len(eps) != 3 || eps[0].IP.String() != "10.0.0.1" || eps[2].IP.String() != "10.0.0.3" {
		t.Fatalf("single slice not sorted: %+v", eps)
	}
	dup := slice("web-a", "web", "10.0.0.2", "10.0.0.1", "10.0.0.2")
	dup.Endpoints[2].NodeName = ptr.To("node-a")
	tr.OnEndpointSliceUpdate(dup, false)
	eps = tr.Snapshot().Endpoints[name]
	if len(eps) != 2 || eps[0].IP.String() != "10.0.0.1" || !eps[1].IsLocal {
		t.Fatalf("single slice with a duplicate: %+v", eps)
	}
	if got := tr.Snapshot().Endpoints[name]; len(eps) == 0 || &got[0] != &eps[0] {
		t.Errorf("snapshots of an unchanged Service should share its list")
	}
}

func key(name string) (k types.NamespacedName) {
	k.Namespace, k.Name = "ns", name
	return k
}

// TestInformers drives the tracker through client-go informers on a fake
// clientset, as it runs against any API server.
func TestInformers(t *testing.T) {
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: map[string]string{proxy.LabelTopologyZone: "z1"}},
		Status: v1.NodeStatus{Addresses: []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: "192.168.10.2"}}}}
	other := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-b"}}
	owned := service("owned", func(s *v1.Service) { s.Labels = map[string]string{"service.kubernetes.io/service-proxy-name": "x"} })
	cidr := &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "kubernetes"},
		Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.96.0.0/16", "fd00::/108"}}}
	client := fake.NewClientset(node, other, service("web", nil), owned, slice("web-a", "web", "10.0.0.1"), cidr)

	changes := make(chan struct{}, 100)
	tr := New(proxy.IPv4, "node-a", func() { changes <- struct{}{} })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := tr.Start(ctx, client, Options{WatchServiceCIDRs: true}); err != nil {
		t.Fatal(err)
	}
	s := tr.Snapshot()
	if len(s.Services) != 1 || s.Node.Zone() != "z1" || len(s.Node.IPs) != 1 ||
		len(s.ServiceCIDRs) != 1 || s.ServiceCIDRs[0] != netip.MustParsePrefix("10.96.0.0/16") {
		t.Fatalf("initial snapshot: services=%v node=%+v cidrs=%v", s.Services, s.Node, s.ServiceCIDRs)
	}
	for len(changes) > 0 {
		<-changes
	}
	if err := client.CoreV1().Services("ns").Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changes:
	case <-time.After(10 * time.Second):
		t.Fatal("no change notification after deleting a Service")
	}
	if s := tr.Snapshot(); len(s.Services) != 0 || len(s.Endpoints) != 0 {
		t.Errorf("after delete: %v %v", s.Services, s.Endpoints)
	}
}

func TestNextSnapshotChanges(t *testing.T) {
	tr := New(proxy.IPv4, "node-a", nil)
	web := proxy.ServicePortName{Namespace: "ns", Name: "web", Port: "http", Protocol: proxy.TCP}
	tr.OnServiceUpdate(key("web"), service("web", nil))
	if s := tr.NextSnapshot(); s.Changes != nil {
		t.Fatalf("first NextSnapshot must not claim a change set: %v", s.Changes)
	}
	changed := func() []proxy.ServicePortName {
		t.Helper()
		s := tr.NextSnapshot()
		if s.Changes == nil {
			t.Fatal("no change set")
		}
		var out []proxy.ServicePortName
		for n := range s.Changes.Ports {
			out = append(out, n)
		}
		return out
	}
	if got := changed(); len(got) != 0 {
		t.Errorf("nothing happened, got %v", got)
	}
	tr.OnEndpointSliceUpdate(slice("web-a", "web", "10.0.0.1"), false)
	if got := changed(); len(got) != 1 || got[0] != web {
		t.Errorf("slice update: %v", got)
	}
	// Renaming the port changes both the old and the new name.
	tr.OnServiceUpdate(key("web"), service("web", func(s *v1.Service) { s.Spec.Ports[0].Name = "https" }))
	if got := changed(); len(got) != 2 {
		t.Errorf("port rename: %v", got)
	}
	// Deleting the Service changes its port and takes the endpoints of
	// the slice's port (still "http") out of the snapshot.
	tr.OnServiceUpdate(key("web"), nil)
	if got := changed(); len(got) != 2 || !slices.ContainsFunc(got, func(n proxy.ServicePortName) bool { return n.Port == "https" }) ||
		!slices.Contains(got, web) {
		t.Errorf("delete: %v", got)
	}
	// A heartbeat-only Node update keeps the change set; a label change drops it.
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a"}}
	tr.OnNodeUpdate(node)
	if got := changed(); len(got) != 0 {
		t.Errorf("unlabelled node: %v", got)
	}
	node.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady}}
	tr.OnNodeUpdate(node)
	if got := changed(); len(got) != 0 {
		t.Errorf("status-only node update: %v", got)
	}
	node.Labels = map[string]string{proxy.LabelTopologyZone: "z"}
	tr.OnNodeUpdate(node)
	if s := tr.NextSnapshot(); s.Changes != nil {
		t.Errorf("zone label change must make the change set unknown")
	}
}

func TestLastChangeTriggerTimes(t *testing.T) {
	tr := New(proxy.IPv4, "node-a", nil)
	old := slice("web-a", "web", "10.0.0.1")
	old.Annotations = map[string]string{v1.EndpointsLastChangeTriggerTime: "2001-01-01T00:00:00Z"}
	tr.OnEndpointSliceUpdate(old, false)
	fresh := slice("web-b", "web", "10.0.0.2")
	when := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	fresh.Annotations = map[string]string{v1.EndpointsLastChangeTriggerTime: when.Format(time.RFC3339Nano)}
	tr.OnEndpointSliceUpdate(fresh, false)
	s := tr.NextSnapshot()
	if len(s.LastChangeTriggerTimes) != 1 || !s.LastChangeTriggerTimes[0].Equal(when) {
		t.Errorf("trigger times %v, want only %v (older than the tracker are ignored)", s.LastChangeTriggerTimes, when)
	}
	if s := tr.NextSnapshot(); len(s.LastChangeTriggerTimes) != 0 {
		t.Errorf("trigger times handed out twice: %v", s.LastChangeTriggerTimes)
	}
}

// TestTransform: the informers' transform drops what the tracker never
// reads, converts an EndpointSlice into the Slice the tracker keeps, and
// the tracker converts a transformed object exactly as the full one.
func TestTransform(t *testing.T) {
	transform := transformFor("node-b")
	s := service("web", nil)
	s.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	s.Annotations = map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}"}
	want := ServicePorts(s, proxy.IPv4)
	out, err := transform(s)
	if svc := out.(*v1.Service); err != nil || svc.ManagedFields != nil || svc.Annotations != nil {
		t.Errorf("Service not trimmed: %+v %v", svc.ObjectMeta, err)
	}
	if got := ServicePorts(s, proxy.IPv4); len(got) != 1 || fmt.Sprint(*got[0]) != fmt.Sprint(*want[0]) {
		t.Errorf("trimmed Service converts to %+v, want %+v", got, want)
	}

	es := slice("web-a", "web", "10.0.0.1", "10.0.0.2")
	es.ResourceVersion, es.UID = "42", "uid-1"
	es.Labels["endpointslice.kubernetes.io/managed-by"] = "endpointslice-controller.k8s.io"
	es.Annotations = map[string]string{v1.EndpointsLastChangeTriggerTime: "2001-01-01T00:00:00Z", "other": "x"}
	es.Endpoints[0].Hostname = ptr.To("pod-a")
	es.Endpoints[0].TargetRef = &v1.ObjectReference{Kind: "Pod", Name: "pod-a"}
	es.Endpoints[0].Conditions = discovery.EndpointConditions{Ready: ptr.To(false), Serving: ptr.To(true), Terminating: ptr.To(true)}
	es.Endpoints[1].Hints = &discovery.EndpointHints{ForZones: []discovery.ForZone{{Name: "z"}}}
	wantEps, _ := sliceEndpoints(es, proxy.IPv4, "node-b")
	out, err = transform(es)
	if err != nil {
		t.Fatal(err)
	}
	sl, ok := out.(*Slice)
	if !ok {
		t.Fatalf("EndpointSlice transformed into %T, want *Slice", out)
	}
	wantMeta := metav1.ObjectMeta{Namespace: "ns", Name: "web-a", ResourceVersion: "42", UID: "uid-1"}
	if !reflect.DeepEqual(sl.ObjectMeta, wantMeta) || sl.Service != "web" || sl.Family != proxy.IPv4 {
		t.Errorf("Slice = %+v %q %v, want %+v \"web\" IPv4", sl.ObjectMeta, sl.Service, sl.Family, wantMeta)
	}
	if !sl.TriggerTime.Equal(time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("trigger time %v, want 2001-01-01", sl.TriggerTime)
	}
	if fmt.Sprint(sl.Endpoints) != fmt.Sprint(wantEps) {
		t.Errorf("transformed slice holds %v, want %v", sl.Endpoints, wantEps)
	}
	if again, _ := transform(sl); again != sl {
		t.Errorf("a Slice must pass through the transform, got %v", again)
	}
	// The informer's cache key is the EndpointSlice's.
	if key, err := cache.MetaNamespaceKeyFunc(sl); err != nil || key != "ns/web-a" {
		t.Errorf("cache key %q %v, want ns/web-a", key, err)
	}
	if out, _ := transform("not an object"); out != "not an object" {
		t.Errorf("non-objects must pass through, got %v", out)
	}

	// The tracker holds the same endpoints, fed either way.
	full, slim := New(proxy.IPv4, "node-b", nil), New(proxy.IPv4, "node-b", nil)
	for _, tr := range []*Tracker{full, slim} {
		tr.OnServiceUpdate(types.NamespacedName{Namespace: "ns", Name: "web"}, service("web", nil))
	}
	full.OnEndpointSliceUpdate(slice("web-a", "web", "10.0.0.2", "10.0.0.1"), false)
	conv, _ := transform(slice("web-a", "web", "10.0.0.2", "10.0.0.1"))
	slim.OnSliceUpdate(conv.(*Slice), false)
	if a, b := fmt.Sprint(full.NextSnapshot().Endpoints), fmt.Sprint(slim.NextSnapshot().Endpoints); a != b {
		t.Errorf("tracker fed the transformed slice holds %s, fed the EndpointSlice %s", b, a)
	}
}

// TestSliceFamilies: a Slice carries its address type's family; an IPv6
// tracker ignores IPv4 slices, FQDN slices have no family.
func TestSliceFamilies(t *testing.T) {
	v6 := slice("web-6", "web", "fd00::1")
	v6.AddressType = discovery.AddressTypeIPv6
	fqdn := slice("web-f", "web", "example.com")
	fqdn.AddressType = discovery.AddressTypeFQDN
	for _, tc := range []struct {
		es   *discovery.EndpointSlice
		want proxy.IPFamily
		eps  int
	}{
		{slice("web-4", "web", "10.0.0.1"), proxy.IPv4, 1},
		{v6, proxy.IPv6, 1},
		{fqdn, 0, 0},
	} {
		s := NewSlice(tc.es, "node-b")
		n := 0
		for _, eps := range s.Endpoints {
			n += len(eps)
		}
		if s.Family != tc.want || n != tc.eps {
			t.Errorf("%s: family %v with %d endpoints, want %v with %d", tc.es.Name, s.Family, n, tc.want, tc.eps)
		}
	}
	tr := New(proxy.IPv6, "node-b", nil)
	tr.OnServiceUpdate(types.NamespacedName{Namespace: "ns", Name: "web"}, service("web", nil))
	tr.OnSliceUpdate(NewSlice(slice("web-4", "web", "10.0.0.1"), "node-b"), false)
	if eps := tr.NextSnapshot().Endpoints; len(eps) != 0 {
		t.Errorf("IPv6 tracker took an IPv4 slice: %v", eps)
	}
}

// TestSliceDeepCopy: a deep copy shares nothing the tracker may sort or
// change.
func TestSliceDeepCopy(t *testing.T) {
	es := slice("web-a", "web", "10.0.0.1", "10.0.0.2")
	es.Endpoints[0].Hints = &discovery.EndpointHints{ForZones: []discovery.ForZone{{Name: "z"}}}
	s := NewSlice(es, "node-b")
	c := s.DeepCopyObject().(*Slice)
	if !reflect.DeepEqual(s, c) {
		t.Fatalf("copy differs: %+v vs %+v", c, s)
	}
	for name := range c.Endpoints {
		c.Endpoints[name][0].Port = 1
		c.Endpoints[name][0].Hints.Zones[0] = "other"
	}
	for name, eps := range s.Endpoints {
		if eps[0].Port != 8080 || eps[0].Hints.Zones[0] != "z" {
			t.Errorf("%v: original changed through the copy: %+v", name, eps[0])
		}
	}
}

// TestNextSnapshotPatched: after random Service and EndpointSlice events
// the patched snapshot NextSnapshot hands out equals a rebuild from every
// Service, and its change set names every port that differs from the
// previous one.
func TestNextSnapshotPatched(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tr := New(proxy.IPv4, "node-a", nil)
	prev := tr.NextSnapshot()
	for step := range 2000 {
		svc := fmt.Sprintf("s%d", rng.IntN(8))
		switch rng.IntN(5) {
		case 0:
			tr.OnServiceUpdate(key(svc), nil)
		case 1, 2:
			port := []string{"http", "https"}[rng.IntN(2)]
			tr.OnServiceUpdate(key(svc), service(svc, func(s *v1.Service) { s.Spec.Ports[0].Name = port }))
		default:
			es := slice(svc+"-"+fmt.Sprint(rng.IntN(2)), svc, fmt.Sprintf("10.0.0.%d", rng.IntN(4)))
			tr.OnEndpointSliceUpdate(es, rng.IntN(3) == 0)
		}
		if rng.IntN(3) != 0 {
			continue
		}
		got := tr.NextSnapshot()
		want := tr.Snapshot()
		if !reflect.DeepEqual(got.Services, want.Services) || !reflect.DeepEqual(got.Endpoints, want.Endpoints) {
			t.Fatalf("step %d: patched snapshot\n%v %v\nwant\n%v %v", step, got.Services, got.Endpoints, want.Services, want.Endpoints)
		}
		for name := range union(prev.Services, got.Services) {
			if _, listed := got.Changes.Ports[name]; !listed && prev.Services[name] != got.Services[name] {
				t.Fatalf("step %d: %v changed but is not in the change set", step, name)
			}
		}
		for name := range union(prev.Endpoints, got.Endpoints) {
			if _, listed := got.Changes.Ports[name]; !listed && !reflect.DeepEqual(prev.Endpoints[name], got.Endpoints[name]) {
				t.Fatalf("step %d: endpoints of %v changed but it is not in the change set", step, name)
			}
		}
		prev = got
	}
}

func union[V any](a, b map[proxy.ServicePortName]V) map[proxy.ServicePortName]struct{} {
	out := map[proxy.ServicePortName]struct{}{}
	for k := range a {
		out[k] = struct{}{}
	}
	for k := range b {
		out[k] = struct{}{}
	}
	return out
}
