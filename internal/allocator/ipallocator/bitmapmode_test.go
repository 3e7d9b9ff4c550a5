package ipallocator

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/svcplane/svcplane/internal/allocator/rangestore"
)

func TestBitmapAllocator(t *testing.T) {
	r, err := ParseRange("10.9.0.0/28", BitmapMaxHostBits)
	if err != nil {
		t.Fatal(err)
	}
	a := NewBitmapAllocator(r, rangestore.NewMemory(BitmapSize(r)))
	seen := map[netip.Addr]bool{}
	for i := 0; i < 14; i++ {
		ip, err := a.AllocateNext(ctx, Owner{}, false)
		if err != nil || seen[ip] || !r.Prefix.Contains(ip) || ip.String() == "10.9.0.0" || ip.String() == "10.9.0.15" {
			t.Fatalf("allocation %d: %s %v", i, ip, err)
		}
		seen[ip] = true
	}
	if _, err := a.AllocateNext(ctx, Owner{}, false); !errors.Is(err, ErrFull) {
		t.Fatalf("want full, got %v", err)
	}
	ip := netip.MustParseAddr("10.9.0.3")
	if err := a.Allocate(ctx, ip, Owner{}, false); !errors.Is(err, ErrAllocated) {
		t.Fatalf("want allocated, got %v", err)
	}
	if err := a.Release(ctx, ip); err != nil {
		t.Fatal(err)
	}
	if err := a.Allocate(ctx, ip, Owner{}, true); err != nil {
		t.Fatalf("dry run after release: %v", err)
	}
	if got, err := a.AllocateNext(ctx, Owner{}, false); err != nil || got != ip {
		t.Fatalf("the only free IP is %s, got %s %v", ip, got, err)
	}
	if _, err := ParseRange("fd00::/107", BitmapMaxHostBits); err == nil {
		t.Fatal("bitmap mode must refuse IPv6 ranges larger than /108")
	}
}
