package bitmap

import (
	"math/big"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Bitmap records which offsets of [0, Size) are allocated.
type Bitmap struct {
	size  uint64
	count uint64
	words []uint64
}

// New returns an empty map of size offsets.
func New(size uint64) *Bitmap {
	return &Bitmap{size: size, words: make([]uint64, (size+63)/64)}
}

// Size is the number of offsets.
func (b *Bitmap) Size() uint64 { return b.size }

// Free is the number of unallocated offsets.
func (b *Bitmap) Free() uint64 { return b.size - b.count }

// Has reports whether offset i is allocated.
func (b *Bitmap) Has(i uint64) bool {
	return i < b.size && b.words[i/64]&(1<<(i%64)) != 0
}

// Set allocates offset i and reports whether it was free.
func (b *Bitmap) Set(i uint64) bool {
	if i >= b.size || b.Has(i) {
		return false
	}
	b.words[i/64] |= 1 << (i % 64)
	b.count++
	return true
}

// Clear frees offset i and reports whether it was allocated.
func (b *Bitmap) Clear(i uint64) bool {
	if !b.Has(i) {
		return false
	}
	b.words[i/64] &^= 1 << (i % 64)
	b.count--
	return true
}

// firstFree returns the first free offset in [from, to).
func (b *Bitmap) firstFree(from, to uint64) (uint64, bool) {
	for i := from; i < to; {
		w := ^b.words[i/64] >> (i % 64)
		if w == 0 {
			i = (i/64 + 1) * 64
			continue
		}
		j := i + uint64(bits.TrailingZeros64(w))
		if j < to {
			return j, true
		}
		return 0, false
	}
	return 0, false
}

// freeInBand returns a free offset of [lo, hi): a linear scan from a random
// start, wrapping around once.
func (b *Bitmap) freeInBand(lo, hi uint64) (uint64, bool) {
	if lo >= hi {
		return 0, false
	}
	start := lo + rand.Uint64N(hi-lo)
	if i, ok := b.firstFree(start, hi); ok {
		return i, true
	}
	return b.firstFree(lo, start)
}

// AllocateNext allocates a free offset: at random from the dynamic band
// [static, size), or from the static band [0, static) when the dynamic one is
// full. It reports false when the map is full.
func (b *Bitmap) AllocateNext(static uint64) (uint64, bool) {
	static = min(static, b.size)
	i, ok := b.freeInBand(static, b.size)
	if !ok {
		i, ok = b.freeInBand(0, static)
	}
	if ok {
		b.Set(i)
	}
	return i, ok
}

// Snapshot returns the map in kube-apiserver's RangeAllocation.Data format:
// the big-endian bytes of an integer whose bit i is offset i.
func (b *Bitmap) Snapshot() []byte {
	n := new(big.Int)
	ws := make([]big.Word, 0, len(b.words)*(64/bits.UintSize))
	for _, w := range b.words {
		if bits.UintSize == 64 {
			ws = append(ws, big.Word(w))
		} else {
			ws = append(ws, big.Word(uint32(w)), big.Word(w>>32))
		}
	}
	return n.SetBits(ws).Bytes()
}

// Restore replaces the map's content with a Snapshot; bits beyond Size are
// ignored.
func (b *Bitmap) Restore(data []byte) {
	clear(b.words)
	for i, w := range new(big.Int).SetBytes(data).Bits() {
		if bits.UintSize == 64 {
			if i < len(b.words) {
				b.words[i] = uint64(w)
			}
		} else if j := i / 2; j < len(b.words) {
			b.words[j] |= uint64(w) << (32 * (i % 2))
		}
	}
	if extra := uint64(len(b.words))*64 - b.size; extra > 0 && len(b.words) > 0 {
		b.words[len(b.words)-1] &= ^uint64(0) >> extra
	}
	b.count = 0
	for _, w := range b.words {
		b.count += uint64(bits.OnesCount64(w))
	}
}

// Clone returns an independent copy.
func (b *Bitmap) Clone() *Bitmap {
	return &Bitmap{size: b.size, count: b.count, words: slices.Clone(b.words)}
}
