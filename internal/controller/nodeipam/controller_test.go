package nodeipam

import (
	"context"
	"net/netip"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
)

func node(name string, cidrs ...string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if len(cidrs) > 0 {
		n.Spec.PodCIDR, n.Spec.PodCIDRs = cidrs[0], cidrs
	}
	return n
}

func TestAssignsDistinctSubnetsNextFit(t *testing.T) {
	ctx := context.Background()
	objs := []runtime.Object{node("has", "10.244.0.0/24", "fd00:10::/64"), node("a"), node("b")}
	client := fake.NewClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	c, err := New(client, f.Core().V1().Nodes(),
		[]netip.Prefix{netip.MustParsePrefix("10.244.0.0/16"), netip.MustParsePrefix("fd00:10::/56")}, 24, 64)
	if err != nil {
		t.Fatal(err)
	}
	store := f.Core().V1().Nodes().Informer().GetStore()
	for _, o := range objs {
		_ = store.Add(o)
		c.occupyLocked(o.(*corev1.Node))
	}
	for _, n := range []string{"a", "b"} {
		if err := c.sync(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	get := func(name string) []string {
		n, _ := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		return n.Spec.PodCIDRs
	}
	a, b := get("a"), get("b")
	if len(a) != 2 || a[0] != "10.244.1.0/24" || a[1] != "fd00:10:0:1::/64" || b[0] != "10.244.2.0/24" {
		t.Fatalf("a=%v b=%v", a, b)
	}
	// "a" goes; the next node does not get its subnets (upstream's range
	// allocator releases them at once but searches on from the last one
	// handed out).
	c.nodeDeleted(node("a", a...))
	_ = store.Add(node("c"))
	_, _ = client.CoreV1().Nodes().Create(ctx, node("c"), metav1.CreateOptions{})
	if err := c.sync(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if got := get("c"); got[0] != "10.244.3.0/24" || got[1] != "fd00:10:0:3::/64" {
		t.Fatalf("c=%v, want 10.244.3.0/24 and fd00:10:0:3::/64 after b's, not a's freed ones", got)
	}
	// A Node that arrives with its CIDRs has them occupied by its sync.
	came := node("came", "10.244.4.0/24", "fd00:10:0:4::/64")
	_ = store.Add(came)
	_, _ = client.CoreV1().Nodes().Create(ctx, came, metav1.CreateOptions{})
	_ = store.Add(node("d"))
	_, _ = client.CoreV1().Nodes().Create(ctx, node("d"), metav1.CreateOptions{})
	for _, n := range []string{"came", "d"} {
		if err := c.sync(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	if got := get("d"); got[0] != "10.244.5.0/24" {
		t.Fatalf("d=%v, want 10.244.5.0/24 (4 is came's)", got)
	}
}

// TestFreedSubnetComesBackAfterWrapping: next-fit as upstream's CidrSet —
// a released subnet is handed out again only once the search has gone
// round the range.
func TestFreedSubnetComesBackAfterWrapping(t *testing.T) {
	s, err := newCIDRSet(netip.MustParsePrefix("10.0.0.0/22"), 24) // four /24s
	if err != nil {
		t.Fatal(err)
	}
	next := func() string {
		p, err := s.next()
		if err != nil {
			t.Fatal(err)
		}
		return p.String()
	}
	var got []string
	got = append(got, next(), next()) // .0, .1
	s.release(netip.MustParsePrefix("10.0.0.0/24"))
	got = append(got, next(), next(), next()) // .2, .3, then round to .0
	s.release(netip.MustParsePrefix("10.0.2.0/24"))
	got = append(got, next()) // from .1 on: .2
	want := "10.0.0.0/24 10.0.1.0/24 10.0.2.0/24 10.0.3.0/24 10.0.0.0/24 10.0.2.0/24"
	if strings.Join(got, " ") != want {
		t.Fatalf("handed out %v, want %s", got, want)
	}
	if _, err := s.next(); err == nil {
		t.Fatal("all four are taken")
	}
}

func TestRangeFull(t *testing.T) {
	s, err := newCIDRSet(netip.MustParsePrefix("10.0.0.0/23"), 24)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if _, err := s.next(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.next(); err == nil {
		t.Fatal("a /23 holds only two /24s")
	}
}

// TestFullClusterCIDRSaysSo: a node the cluster CIDR has no subnet left
// for gets upstream's CIDRNotAvailable event (type Normal, its message)
// naming --cluster-cidr.
func TestFullClusterCIDRSaysSo(t *testing.T) {
	ctx := context.Background()
	objs := []runtime.Object{node("has", "10.0.0.0/24"), node("late")}
	client := fake.NewClientset(objs...)
	f := informers.NewSharedInformerFactory(client, 0)
	c, err := New(client, f.Core().V1().Nodes(), []netip.Prefix{netip.MustParsePrefix("10.0.0.0/24")}, 24, 64)
	if err != nil {
		t.Fatal(err)
	}
	rec := record.NewFakeRecorder(1)
	c.recorder = rec
	for _, o := range objs {
		_ = f.Core().V1().Nodes().Informer().GetStore().Add(o)
		c.occupyLocked(o.(*corev1.Node))
	}
	if err := c.sync(ctx, "late"); err == nil {
		t.Fatal("a full cluster CIDR gave a subnet")
	}
	ev := <-rec.Events
	if !strings.HasPrefix(ev, "Normal CIDRNotAvailable Node late status is now: CIDRNotAvailable") ||
		!strings.Contains(ev, "--cluster-cidr 10.0.0.0/24 holds 1 /24 subnets") {
		t.Fatalf("event: %s", ev)
	}
}
