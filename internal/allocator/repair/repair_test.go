package repair

import (
	"context"
	"net/netip"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/svcplane/svcplane/internal/allocator/bitmap"
	"github.com/svcplane/svcplane/internal/allocator/ipallocator"
	"github.com/svcplane/svcplane/internal/allocator/rangestore"
)

var ctx = context.Background()

type fakeRecorder struct {
	mu      sync.Mutex
	reasons []string
}

func (f *fakeRecorder) Warn(_ runtime.Object, reason, _ string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reasons = append(f.reasons, reason)
}

func (f *fakeRecorder) has(reason string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.reasons {
		if r == reason {
			return true
		}
	}
	return false
}

func nodePortService(ns, name string, ports ...int32) *corev1.Service {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort}}
	for _, p := range ports {
		svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Port: 80, NodePort: p})
	}
	return svc
}

// portKind maps NodePorts of 30000-30099 to offsets.
var portKind = Kind{Reason: "Port", Noun: "Port", Values: func(svc *corev1.Service) []Value {
	var out []Value
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 {
			out = append(out, Value{Offset: uint64(p.NodePort - 30000), InRange: p.NodePort >= 30000 && p.NodePort < 30100, Text: "30000"})
		}
	}
	return out
}}

// TestBitmapRepair: a missing allocation is recorded at once; a leaked one
// (a crash between taking a port and writing the Service) is freed on the
// third consecutive pass only; duplicates and out-of-range values are
// reported.
func TestBitmapRepair(t *testing.T) {
	client := fake.NewClientset(
		nodePortService("a", "held", 30010),
		nodePortService("a", "dup1", 30020), nodePortService("a", "dup2", 30020),
		nodePortService("a", "outside", 31000),
	)
	store := rangestore.NewMemory(100)
	_ = store.Update(ctx, func(b *bitmap.Bitmap) error { b.Set(20); b.Set(50); return nil }) // 50 leaked
	rec := &fakeRecorder{}
	r := NewBitmapRepair(client, store, portKind, rec)
	has := func(off uint64) bool { b, _ := store.Get(ctx); return b.Has(off) }
	for pass := 1; pass <= 3; pass++ {
		if err := r.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		if !has(10) {
			t.Fatalf("pass %d: the held port is not recorded", pass)
		}
		if leaked := has(50); leaked != (pass < 3) {
			t.Fatalf("pass %d: leaked port present=%v", pass, leaked)
		}
	}
	if r.Leaked() != 0 {
		t.Fatalf("the leak count must be reset after freeing, have %d", r.Leaked())
	}
	for _, reason := range []string{"PortNotAllocated", "PortAlreadyAllocated", "PortOutOfRange"} {
		if !rec.has(reason) {
			t.Errorf("no %s event", reason)
		}
	}
	// A value leaked once, then used again, starts counting from zero.
	_ = store.Update(ctx, func(b *bitmap.Bitmap) error { b.Set(60); return nil })
	noErr(t, r.RunOnce(ctx))
	_, _ = client.CoreV1().Services("a").Create(ctx, nodePortService("a", "late", 30060), metav1.CreateOptions{})
	noErr(t, r.RunOnce(ctx))
	if r.Leaked() != 0 || !has(60) {
		t.Fatalf("a value in use must not be counted as leaked")
	}
}

func noErr(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestIPAddressRepair(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "web"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.0.10", ClusterIPs: []string{"10.96.0.10"}}}
	out := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "out"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.200.0.1", ClusterIPs: []string{"10.200.0.1"}}}
	clk := testingclock.NewFakeClock(time.Now())
	orphan := ipallocator.NewIPAddress(netip.MustParseAddr("10.96.0.99"), ipallocator.Owner{Namespace: "a", Name: "gone"})
	orphan.CreationTimestamp = metav1.NewTime(clk.Now())
	foreign := &networkingv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Name: "10.96.0.98"}} // not ours
	client := fake.NewClientset(svc, out, orphan, foreign)
	prefix := netip.MustParsePrefix("10.96.0.0/12")
	rec := &fakeRecorder{}
	r := NewIPAddressRepair(client, prefix.Contains, rec, clk)
	exists := func(name string) bool {
		_, err := client.NetworkingV1().IPAddresses().Get(ctx, name, metav1.GetOptions{})
		return err == nil
	}
	for pass := 1; pass <= 3; pass++ {
		noErr(t, r.RunOnce(ctx))
	}
	if !exists("10.96.0.10") || !rec.has("ClusterIPNotAllocated") || !rec.has("ClusterIPOutOfRange") {
		t.Fatalf("missing IPAddress not repaired or events missing: %v", rec.reasons)
	}
	if !exists("10.96.0.99") {
		t.Fatal("an orphan younger than 60 s must be kept")
	}
	clk.Step(OrphanGracePeriod + time.Second)
	noErr(t, r.RunOnce(ctx))
	if exists("10.96.0.99") {
		t.Fatal("an orphan seen on 3+ passes and older than 60 s must be deleted")
	}
	if !exists("10.96.0.98") {
		t.Fatal("IPAddresses not managed by the service allocator must be left alone")
	}
}

// TestBitmapRepairDoesNotRetakeAReleaseItRaced: a Service is deleted and its
// port released while a pass runs, after the pass listed the Service but
// before it wrote the map. The pass must not mark the port allocated again
// (it would stay taken for three more passes, 9 minutes by default).
func TestBitmapRepairDoesNotRetakeAReleaseItRaced(t *testing.T) {
	client := fake.NewClientset(nodePortService("a", "going", 30030), nodePortService("a", "stays", 30040))
	store := rangestore.NewMemory(100)
	_ = store.Update(ctx, func(b *bitmap.Bitmap) error { b.Set(30); b.Set(40); return nil })
	client.PrependReactor("list", "services", func(k8stesting.Action) (bool, runtime.Object, error) {
		// The delete of "going" commits and its port is released while
		// this (already consistent) list is on its way to the pass.
		_ = store.Update(ctx, func(b *bitmap.Bitmap) error { b.Clear(30); return nil })
		return false, nil, nil
	})
	rec := &fakeRecorder{}
	if err := NewBitmapRepair(client, store, portKind, rec).RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	b, _ := store.Get(ctx)
	if b.Has(30) {
		t.Error("the pass took back port 30030, released while it ran")
	}
	if !b.Has(40) {
		t.Error("the pass freed port 30040 of a Service that still exists")
	}
}
