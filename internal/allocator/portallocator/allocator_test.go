package portallocator

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/svcplane/svcplane/internal/allocator/rangestore"
)

var ctx = context.Background()

func TestParseRange(t *testing.T) {
	for in, want := range map[string]Range{"30000-32767": {30000, 2768}, "100+10": {100, 11}} {
		if got, err := ParseRange(in); err != nil || got != want {
			t.Errorf("ParseRange(%q)=%v,%v want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "5", "10-5", "0-10", "1-70000", "a-b"} {
		if _, err := ParseRange(bad); err == nil {
			t.Errorf("ParseRange(%q) must fail", bad)
		}
	}
}

func TestAllocateIsAllOrNothing(t *testing.T) {
	mem := rangestore.NewMemory(100)
	a := New(Range{30000, 100}, mem)
	got, err := a.Allocate(ctx, []int{30000, 30001}, 2, false)
	if err != nil || len(got) != 2 {
		t.Fatalf("Allocate: %v %v", got, err)
	}
	for _, p := range got {
		if p < 30016 {
			t.Fatalf("dynamic port %d from the static band (16 wide) while the upper band was free", p)
		}
	}
	// 30005 lies in the static band, which the dynamic ports above did
	// not touch: only 30001 can be the one already allocated.
	var pe *PortError
	_, err = a.Allocate(ctx, []int{30005, 30001}, 3, false)
	if !errors.As(err, &pe) || pe.Port != 30001 || err.Error() != "provided port is already allocated" {
		t.Fatalf("want port 30001 already allocated, got %v", err)
	}
	if _, err := a.Allocate(ctx, []int{30005}, 0, false); err != nil {
		t.Fatalf("30005 must still be free after the failed call: %v", err)
	}
	_, err = a.Allocate(ctx, []int{29999}, 0, false)
	if err == nil || err.Error() != "provided port is not in the valid range. The range of valid ports is 30000-30099" {
		t.Fatalf("out of range: %v", err)
	}
	if err := a.Release(ctx, []int{30000}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Allocate(ctx, []int{30000}, 0, true); err != nil {
		t.Fatalf("dry run of a released port: %v", err)
	}
	writes := mem.Writes
	if _, err := a.Allocate(ctx, nil, 1, true); err != nil || mem.Writes != writes {
		t.Fatalf("dry run wrote: %v (writes %d→%d)", err, writes, mem.Writes)
	}
}

func TestConcurrentUntilFull(t *testing.T) {
	a := New(Range{30000, 300}, rangestore.NewMemory(300))
	var mu sync.Mutex
	seen := map[int]bool{}
	var wg sync.WaitGroup
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				ps, err := a.Allocate(ctx, nil, 1, false)
				if errors.Is(err, ErrFull) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[ps[0]] {
					t.Errorf("port %d handed out twice", ps[0])
				}
				seen[ps[0]] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(seen) != 300 {
		t.Fatalf("%d ports allocated, want 300", len(seen))
	}
}
