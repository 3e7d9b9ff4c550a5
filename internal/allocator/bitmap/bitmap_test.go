package bitmap

import (
	"math/rand/v2"
	"testing"
)

// TestAgainstModel drives random allocate/release sequences against a naive
// set model: the bitmap must agree on every answer, never hand out an
// allocated offset, and use the static band only when the dynamic one is
// full.
func TestAgainstModel(t *testing.T) {
	for _, size := range []uint64{1, 15, 16, 17, 64, 65, 254, 256, 1000, 4094} {
		static := IPStaticBand(size)
		b, model := New(size), map[uint64]bool{}
		r := rand.New(rand.NewPCG(size, 7))
		for step := 0; step < 20000; step++ {
			switch op := r.IntN(4); {
			case op == 0: // release a random offset
				i := r.Uint64N(size)
				if got := b.Clear(i); got != model[i] {
					t.Fatalf("size %d: Clear(%d)=%v, model has %v", size, i, got, model[i])
				}
				delete(model, i)
			case op == 1: // request a specific offset
				i := r.Uint64N(size)
				if got := b.Set(i); got == model[i] {
					t.Fatalf("size %d: Set(%d)=%v, model allocated=%v", size, i, got, model[i])
				}
				model[i] = true
			default:
				upperFree := false
				for j := static; j < size; j++ {
					upperFree = upperFree || !model[j]
				}
				i, ok := b.AllocateNext(static)
				if ok != (uint64(len(model)) < size) {
					t.Fatalf("size %d: AllocateNext ok=%v with %d allocated", size, ok, len(model))
				}
				if !ok {
					continue
				}
				if model[i] {
					t.Fatalf("size %d: AllocateNext gave allocated offset %d", size, i)
				}
				if upperFree && i < static {
					t.Fatalf("size %d: picked %d from the static band while the dynamic band had room", size, i)
				}
				model[i] = true
			}
			if b.Free() != size-uint64(len(model)) {
				t.Fatalf("size %d: Free()=%d, model free %d", size, b.Free(), size-uint64(len(model)))
			}
		}
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	for _, size := range []uint64{1, 63, 64, 65, 1 << 16} {
		b := New(size)
		r := rand.New(rand.NewPCG(1, size))
		for i := 0; i < 50; i++ {
			b.Set(r.Uint64N(size))
		}
		b.Set(size - 1)
		c := New(size)
		c.Restore(b.Snapshot())
		if c.Free() != b.Free() {
			t.Fatalf("size %d: free %d after restore, want %d", size, c.Free(), b.Free())
		}
		for i := uint64(0); i < size; i++ {
			if c.Has(i) != b.Has(i) {
				t.Fatalf("size %d: offset %d differs after restore", size, i)
			}
		}
	}
}

// TestSnapshotFormat pins the upstream encoding: offset i is bit i of a
// big-endian integer.
func TestSnapshotFormat(t *testing.T) {
	b := New(100)
	b.Set(0)
	b.Set(9)
	if got := b.Snapshot(); len(got) != 2 || got[0] != 0x02 || got[1] != 0x01 {
		t.Fatalf("snapshot %x, want 0201", got)
	}
}

func TestBands(t *testing.T) {
	for size, want := range map[uint64]uint64{8: 8, 100: 16, 1000: 62, 1 << 20: 256} {
		if got := IPStaticBand(size); got != want {
			t.Errorf("IPStaticBand(%d)=%d, want %d", size, got, want)
		}
	}
	if got := PortStaticBand(2768); got != 86 {
		t.Errorf("PortStaticBand(2768)=%d, want 86", got)
	}
}
