package ipallocator

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

var ctx = context.Background()

func newTestAllocator(t *testing.T, store IPAddressStore, cidrs ...string) *IPAddressAllocator {
	t.Helper()
	var rs []*Range
	for _, c := range cidrs {
		r, err := ParseRange(c, 64)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	return NewIPAddressAllocator(rs[0].Family, store, func() []*Range { return rs })
}

func TestIPAddressAllocatorFillsRangeThenFull(t *testing.T) {
	store := NewFakeStore()
	a := newTestAllocator(t, store, "10.0.0.0/27") // 30 usable, static band 16
	seen := map[netip.Addr]bool{}
	for i := 0; i < 30; i++ {
		ip, err := a.AllocateNext(ctx, Owner{"ns", fmt.Sprint(i)}, false)
		if err != nil {
			t.Fatalf("allocation %d: %v", i, err)
		}
		if seen[ip] {
			t.Fatalf("%s handed out twice", ip)
		}
		seen[ip] = true
		r := a.ranges()[0]
		off, _ := r.Offset(ip)
		if i < 14 && off < 16 {
			t.Fatalf("allocation %d took %s from the static band while the dynamic band had room", i, ip)
		}
	}
	if _, err := a.AllocateNext(ctx, Owner{"ns", "x"}, false); !errors.Is(err, ErrFull) {
		t.Fatalf("want ErrFull, got %v", err)
	}
	for _, bad := range []string{"10.0.0.0", "10.0.0.31"} {
		var nir *ErrNotInRange
		if err := a.Allocate(ctx, netip.MustParseAddr(bad), Owner{"ns", "y"}, false); !errors.As(err, &nir) ||
			err.Error() != fmt.Sprintf("the provided IP (%s) is not in the valid range. The range of valid IPs is 10.0.0.0/27", bad) {
			t.Fatalf("%s: %v", bad, err)
		}
	}
	if err := a.Release(ctx, netip.MustParseAddr("10.0.0.5")); err != nil {
		t.Fatal(err)
	}
	if err := a.Allocate(ctx, netip.MustParseAddr("10.0.0.5"), Owner{"ns", "z"}, false); err != nil {
		t.Fatalf("released IP not reusable: %v", err)
	}
	if err := a.Allocate(ctx, netip.MustParseAddr("10.0.0.5"), Owner{"ns", "w"}, false); !errors.Is(err, ErrAllocated) ||
		err.Error() != "provided IP is already allocated" {
		t.Fatalf("want ErrAllocated, got %v", err)
	}
}

// TestServersSharingOneStoreNeverCollide plays several API servers on one
// etcd: each allocator has its own cache and knows nothing of the others'
// picks, yet no IP is handed out twice and the range fills exactly.
func TestServersSharingOneStoreNeverCollide(t *testing.T) {
	store := NewFakeStore()
	servers := []*IPAddressAllocator{
		newTestAllocator(t, store, "10.1.0.0/22"), newTestAllocator(t, store, "10.1.0.0/22"),
		newTestAllocator(t, store, "10.1.0.0/22"),
	}
	var mu sync.Mutex
	got := map[netip.Addr]int{}
	var wg sync.WaitGroup
	for g := 0; g < 64; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			a := servers[g%len(servers)]
			for i := 0; ; i++ {
				ip, err := a.AllocateNext(ctx, Owner{"ns", fmt.Sprint(g, "-", i)}, false)
				if errors.Is(err, ErrFull) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				got[ip]++
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()
	if len(got) != 1022 || store.Creates != 1022 {
		t.Fatalf("allocated %d distinct IPs with %d creates, want all 1022", len(got), store.Creates)
	}
	for ip, n := range got {
		if n != 1 {
			t.Fatalf("%s handed out %d times", ip, n)
		}
	}
}

func TestIPv6Slash64AndDryRun(t *testing.T) {
	store := NewFakeStore()
	a := newTestAllocator(t, store, "fd00:10::/64")
	if a.Family() != corev1.IPv6Protocol {
		t.Fatalf("family %s", a.Family())
	}
	ip, err := a.AllocateNext(ctx, Owner{"ns", "dry"}, true)
	if err != nil || !netip.MustParsePrefix("fd00:10::/64").Contains(ip) || store.Creates != 0 {
		t.Fatalf("dry run: %s %v (creates %d)", ip, err, store.Creates)
	}
	last := netip.MustParseAddr("fd00:10::ffff:ffff:ffff:ffff")
	if err := a.Allocate(ctx, last, Owner{"ns", "last"}, false); err != nil {
		t.Fatalf("last address of a /64: %v", err)
	}
	if err := a.Allocate(ctx, last, Owner{"ns", "again"}, true); !errors.Is(err, ErrAllocated) {
		t.Fatalf("dry run of a taken IP: %v", err)
	}
	obj, err := store.Get(ctx, last.String())
	if err != nil || obj.Labels[LabelIPFamily] != "IPv6" || obj.Labels[LabelManagedBy] != ManagedByService ||
		obj.Spec.ParentRef.Resource != "services" || obj.Spec.ParentRef.Name != "last" {
		t.Fatalf("IPAddress object: %+v %v", obj, err)
	}
}

// TestModel compares random allocate/request/release sequences with a naive
// set of taken IPs.
func TestModel(t *testing.T) {
	store := NewFakeStore()
	a := newTestAllocator(t, store, "10.2.0.0/26", "10.3.0.0/28")
	model := map[string]bool{}
	all := []string{}
	for _, r := range a.ranges() {
		for i := uint64(0); i < r.Size(); i++ {
			all = append(all, r.Addr(i).String())
		}
	}
	for step := 0; step < 3000; step++ {
		ipStr := all[(step*7919)%len(all)]
		ip := netip.MustParseAddr(ipStr)
		switch step % 3 {
		case 0:
			err := a.Allocate(ctx, ip, Owner{"ns", "s"}, false)
			if model[ipStr] != errors.Is(err, ErrAllocated) {
				t.Fatalf("step %d: Allocate(%s)=%v, model taken=%v", step, ip, err, model[ipStr])
			}
			model[ipStr] = true
		case 1:
			got, err := a.AllocateNext(ctx, Owner{"ns", "s"}, false)
			full := len(model) == len(all)
			if full != errors.Is(err, ErrFull) || (!full && model[got.String()]) {
				t.Fatalf("step %d: AllocateNext=%s,%v with %d/%d taken", step, got, err, len(model), len(all))
			}
			if err == nil {
				model[got.String()] = true
			}
		default:
			if err := a.Release(ctx, ip); err != nil {
				t.Fatal(err)
			}
			delete(model, ipStr)
		}
	}
}
