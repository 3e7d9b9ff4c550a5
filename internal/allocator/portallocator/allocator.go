package portallocator

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/svcplane/svcplane/internal/allocator/bitmap"
	"github.com/svcplane/svcplane/internal/allocator/rangestore"
)

// Errors with kube-apiserver's wording.
var (
	ErrFull      = errors.New("range is full")
	ErrAllocated = errors.New("provided port is already allocated")
)

// ErrNotInRange is returned for a requested port outside the range.
type ErrNotInRange struct{ ValidPorts string }

func (e *ErrNotInRange) Error() string {
	return "provided port is not in the valid range. The range of valid ports is " + e.ValidPorts
}

// PortError says which requested port failed.
type PortError struct {
	Port int
	Err  error
}

func (e *PortError) Error() string { return e.Err.Error() }
func (e *PortError) Unwrap() error { return e.Err }

// Range is a port range: Base, Base+1, …, Base+Size-1.
type Range struct{ Base, Size int }

// ParseRange parses "30000-32767" (or "30000+2767", as k8s.io/apimachinery's
// net.ParsePortRange accepts).
func ParseRange(s string) (Range, error) {
	bad := fmt.Errorf("invalid port range %q: want \"<first>-<last>\"", s)
	sep := strings.IndexAny(s, "-+")
	if sep < 0 {
		return Range{}, bad
	}
	lo, err1 := strconv.Atoi(strings.TrimSpace(s[:sep]))
	hi, err2 := strconv.Atoi(strings.TrimSpace(s[sep+1:]))
	if err1 != nil || err2 != nil {
		return Range{}, bad
	}
	if s[sep] == '+' {
		hi += lo
	}
	if lo < 1 || hi > 65535 || hi < lo {
		return Range{}, bad
	}
	return Range{Base: lo, Size: hi - lo + 1}, nil
}

// String returns "first-last", as in the error messages.
func (r Range) String() string { return fmt.Sprintf("%d-%d", r.Base, r.Base+r.Size-1) }

// Contains reports whether port is in the range.
func (r Range) Contains(port int) bool { return port >= r.Base && port < r.Base+r.Size }

// Allocator allocates NodePorts.
type Allocator struct {
	r     Range
	store rangestore.Interface
}

// New returns an allocator of r kept in store.
func New(r Range, store rangestore.Interface) *Allocator { return &Allocator{r: r, store: store} }

// Range returns the port range.
func (a *Allocator) Range() Range { return a.r }

// Allocate takes every requested port and n more free ones (upper band at
// random, the static band only when the upper one is full) in one atomic
// change, and returns the n new ones. Nothing is taken on error; a
// *PortError names a requested port that failed. dryRun checks without
// writing.
func (a *Allocator) Allocate(ctx context.Context, requested []int, n int, dryRun bool) ([]int, error) {
	for _, p := range requested {
		if !a.r.Contains(p) {
			return nil, &PortError{Port: p, Err: &ErrNotInRange{ValidPorts: a.r.String()}}
		}
	}
	var out []int
	fn := func(b *bitmap.Bitmap) error {
		out = out[:0]
		for _, p := range requested {
			if !b.Set(uint64(p - a.r.Base)) {
				return &PortError{Port: p, Err: ErrAllocated}
			}
		}
		for i := 0; i < n; i++ {
			off, ok := b.AllocateNext(bitmap.PortStaticBand(uint64(a.r.Size)))
			if !ok {
				return ErrFull
			}
			out = append(out, a.r.Base+int(off))
		}
		return nil
	}
	if len(requested) == 0 && n == 0 {
		return nil, nil
	}
	if dryRun {
		b, err := a.store.Get(ctx)
		if err != nil {
			return nil, err
		}
		err = fn(b)
		return out, err
	}
	if err := a.store.Update(ctx, fn); err != nil {
		return nil, err
	}
	return out, nil
}

// Release frees ports (those outside the range are ignored).
func (a *Allocator) Release(ctx context.Context, ports []int) error {
	if len(ports) == 0 {
		return nil
	}
	return a.store.Update(ctx, func(b *bitmap.Bitmap) error {
		for _, p := range ports {
			if a.r.Contains(p) {
				b.Clear(uint64(p - a.r.Base))
			}
		}
		return nil
	})
}
