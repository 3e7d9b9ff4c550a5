package rangestore

import (
	"context"
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

// Etcd is an Interface on an etcd key.
type Etcd struct {
	storage   storage.Interface
	key       string
	rangeSpec string
	size      uint64
}

// NewEtcd returns the map of size offsets for rangeSpec (e.g. "30000-32767"
// or "10.96.0.0/12") at key (e.g. "/ranges/servicenodeports").
func NewEtcd(s storage.Interface, key, rangeSpec string, size uint64) *Etcd {
	return &Etcd{storage: s, key: key, rangeSpec: rangeSpec, size: size}
}

// Update implements Interface.
func (e *Etcd) Update(ctx context.Context, fn func(*bitmap.Bitmap) error) error {
	return e.storage.GuaranteedUpdate(ctx, e.key, &corev1.RangeAllocation{}, true, nil,
		storage.SimpleUpdate(func(obj runtime.Object) (runtime.Object, error) {
			ra := obj.(*corev1.RangeAllocation)
			b, err := e.load(ra)
			if err != nil {
				return nil, err
			}
			if err := fn(b); err != nil {
				return nil, err
			}
			ra.Range, ra.Data = e.rangeSpec, b.Snapshot()
			return ra, nil
		}), nil)
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
