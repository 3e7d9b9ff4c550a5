package rangestore

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/storage"

	"github.com/svcplane/svcplane/internal/allocator/bitmap"
)

// Interface changes or reads one stored allocation map.
type Interface interface {
	// Update loads the current map, applies fn and stores the result
	// atomically; fn may run more than once on conflicts. An error from fn
	// aborts without writing.
	Update(ctx context.Context, fn func(*bitmap.Bitmap) error) error
	// Get returns a copy of the current map.
	Get(ctx context.Context) (*bitmap.Bitmap, error)
}

// Etcd is an Interface on an etcd key. Concurrent Updates in one process
// are group-committed: while one compare-and-swap is in flight the next
// callers queue, and the next write applies all of them at once (each on
// its own copy of the map, so one caller's error leaves the others' changes
// intact). Callers return only after the write holding their change has
// committed. The caller that writes a batch holds its own change in it and
// returns after that one write, handing the next batch to the first caller
// still queued, so no caller keeps writing other callers' changes for as
// long as new ones arrive.
type Etcd struct {
	storage   storage.Interface
	key       string
	rangeSpec string
	size      uint64

	mu      sync.Mutex
	pending []*op
	leading bool
	// last is the last object written or read, used as the starting point
	// of the next compare-and-swap (a stale one just costs a retry).
	last *corev1.RangeAllocation
}

type op struct {
	fn   func(*bitmap.Bitmap) error
	err  error
	done chan struct{} // closed when the write holding fn has finished
	lead chan struct{} // closed when this caller is to write the next batch
}

// NewEtcd returns the map of size offsets for rangeSpec (e.g. "30000-32767"
// or "10.96.0.0/12") at key (e.g. "/ranges/servicenodeports").
func NewEtcd(s storage.Interface, key, rangeSpec string, size uint64) *Etcd {
	return &Etcd{storage: s, key: key, rangeSpec: rangeSpec, size: size}
}

// Update implements Interface.
func (e *Etcd) Update(ctx context.Context, fn func(*bitmap.Bitmap) error) error {
	o := &op{fn: fn, done: make(chan struct{}), lead: make(chan struct{})}
	e.mu.Lock()
	e.pending = append(e.pending, o)
	if !e.leading {
		e.leading = true
		e.mu.Unlock()
	} else {
		e.mu.Unlock()
		select {
		case <-o.done:
			return o.err
		case <-o.lead:
		case <-ctx.Done():
			return e.abandon(o, ctx.Err())
		}
	}
	// This caller writes the pending batch, its own change among them.
	e.mu.Lock()
	batch := e.pending
	e.pending = nil
	e.mu.Unlock()
	e.commit(context.WithoutCancel(ctx), batch)
	e.mu.Lock()
	e.handOff()
	e.mu.Unlock()
	return o.err
}

// abandon takes o, whose caller gave up waiting, out of the queue. A change
// already in a write in flight is waited for, so that the caller learns
// whether it was stored.
func (e *Etcd) abandon(o *op, err error) error {
	e.mu.Lock()
	for i, p := range e.pending {
		if p != o {
			continue
		}
		e.pending = append(e.pending[:i], e.pending[i+1:]...)
		select {
		case <-o.lead: // chosen to write next: pass that on
			e.handOff()
		default:
		}
		e.mu.Unlock()
		return err
	}
	e.mu.Unlock()
	<-o.done
	return o.err
}

// handOff makes the first queued caller write the next batch, or ends the
// leading when none is queued. e.mu is held.
func (e *Etcd) handOff() {
	if len(e.pending) == 0 {
		e.leading = false
		return
	}
	close(e.pending[0].lead)
}

// commit applies batch in one compare-and-swap and wakes its callers.
func (e *Etcd) commit(ctx context.Context, batch []*op) {
	e.mu.Lock()
	cached := e.last
	e.mu.Unlock()
	dest := &corev1.RangeAllocation{}
	err := e.storage.GuaranteedUpdate(ctx, e.key, dest, true, nil,
		storage.SimpleUpdate(func(obj runtime.Object) (runtime.Object, error) {
			ra := obj.(*corev1.RangeAllocation)
			b, err := e.load(ra)
			if err != nil {
				return nil, err
			}
			changed := false
			for _, o := range batch {
				trial := b.Clone()
				if o.err = o.fn(trial); o.err == nil {
					b, changed = trial, true
				}
			}
			if !changed {
				return nil, errNothingToWrite
			}
			out := ra.DeepCopy()
			out.Range, out.Data = e.rangeSpec, b.Snapshot()
			return out, nil
		}), cachedOrNil(cached))
	e.mu.Lock()
	if err == nil {
		e.last = dest // carries the new resourceVersion
	} else {
		e.last = nil
	}
	e.mu.Unlock()
	for _, o := range batch {
		if err != nil && !errors.Is(err, errNothingToWrite) && o.err == nil {
			o.err = err
		}
		close(o.done)
	}
}

var errNothingToWrite = errors.New("no change to write")

func cachedOrNil(ra *corev1.RangeAllocation) runtime.Object {
	if ra == nil {
		return nil
	}
	return ra
}

// Get implements Interface.
func (e *Etcd) Get(ctx context.Context) (*bitmap.Bitmap, error) {
	ra := &corev1.RangeAllocation{}
	if err := e.storage.Get(ctx, e.key, storage.GetOptions{IgnoreNotFound: true}, ra); err != nil {
		return nil, err
	}
	return e.load(ra)
}

func (e *Etcd) load(ra *corev1.RangeAllocation) (*bitmap.Bitmap, error) {
	if ra.Range != "" && ra.Range != e.rangeSpec {
		return nil, fmt.Errorf("the stored range %s does not match the configured range %s; the repair loop must reconcile it", ra.Range, e.rangeSpec)
	}
	b := bitmap.New(e.size)
	b.Restore(ra.Data)
	return b, nil
}

// Memory is an in-memory Interface with the same atomicity, for tests.
type Memory struct {
	mu   sync.Mutex
	data []byte
	size uint64
	// Writes counts successful updates.
	Writes int
}

// NewMemory returns an empty map of size offsets.
func NewMemory(size uint64) *Memory { return &Memory{size: size} }

// Update implements Interface.
func (m *Memory) Update(_ context.Context, fn func(*bitmap.Bitmap) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := bitmap.New(m.size)
	b.Restore(m.data)
	if err := fn(b); err != nil {
		return err
	}
	m.data = b.Snapshot()
	m.Writes++
	return nil
}

// Get implements Interface.
func (m *Memory) Get(context.Context) (*bitmap.Bitmap, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := bitmap.New(m.size)
	b.Restore(m.data)
	return b, nil
}
