package rangestore

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/storage"

	"github.com/svcplane/svcplane/internal/allocator/bitmap"
)

// TestMemoryKeepsFailedChangesOut checks the contract every store keeps: an
// error from fn writes nothing.
func TestMemoryKeepsFailedChangesOut(t *testing.T) {
	m := NewMemory(10)
	boom := errors.New("boom")
	err := m.Update(context.Background(), func(b *bitmap.Bitmap) error { b.Set(1); return boom })
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	b, _ := m.Get(context.Background())
	if b.Has(1) || m.Writes != 0 {
		t.Fatal("a failed update was written")
	}
}

// gatedStorage is a storage.Interface holding one RangeAllocation. Every
// GuaranteedUpdate announces itself on entered, with the name its caller's
// context carries, and writes only when released; like etcd, it applies
// tryUpdate to the stored object and keeps the result.
type gatedStorage struct {
	storage.Interface
	entered chan string
	release chan struct{}

	mu  sync.Mutex
	cur *corev1.RangeAllocation
	rv  uint64
}

type writerKey struct{}

func newGatedStorage() *gatedStorage {
	return &gatedStorage{entered: make(chan string), release: make(chan struct{}), cur: &corev1.RangeAllocation{}}
}

func (g *gatedStorage) GuaranteedUpdate(ctx context.Context, _ string, dest k8sruntime.Object, _ bool, _ *storage.Preconditions, try storage.UpdateFunc, _ k8sruntime.Object) error {
	name, _ := ctx.Value(writerKey{}).(string)
	g.entered <- name
	<-g.release
	g.mu.Lock()
	defer g.mu.Unlock()
	out, _, err := try(g.cur.DeepCopy(), storage.ResponseMeta{ResourceVersion: g.rv})
	if err != nil {
		return err
	}
	g.rv++
	g.cur = out.(*corev1.RangeAllocation)
	*dest.(*corev1.RangeAllocation) = *g.cur.DeepCopy()
	return nil
}

func (g *gatedStorage) Get(_ context.Context, _ string, _ storage.GetOptions, obj k8sruntime.Object) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	*obj.(*corev1.RangeAllocation) = *g.cur.DeepCopy()
	return nil
}

func named(name string) context.Context {
	return context.WithValue(context.Background(), writerKey{}, name)
}

func set(i uint64) func(*bitmap.Bitmap) error {
	return func(b *bitmap.Bitmap) error { b.Set(i); return nil }
}

// waitQueued waits until n callers are queued behind the write in flight.
func waitQueued(e *Etcd, n int) {
	for {
		e.mu.Lock()
		q := len(e.pending)
		e.mu.Unlock()
		if q == n {
			return
		}
		runtime.Gosched()
	}
}

// TestEtcdWriterReturnsAfterItsOwnWrite: changes queued while a write is in
// flight go out together in the next write, made by the first of their
// callers; the caller of the first write returns after it and does not
// keep writing for others (under steady load it would never return).
func TestEtcdWriterReturnsAfterItsOwnWrite(t *testing.T) {
	g := newGatedStorage()
	e := NewEtcd(g, "/ranges/test", "0-9", 10)
	errs := map[string]chan error{}
	update := func(name string, i uint64) {
		errs[name] = make(chan error, 1)
		go func() { errs[name] <- e.Update(named(name), set(i)) }()
	}
	update("a", 1)
	if w := <-g.entered; w != "a" {
		t.Fatalf("first write by %q, want a", w)
	}
	update("b", 2)
	waitQueued(e, 1)
	update("c", 3)
	waitQueued(e, 2)
	g.release <- struct{}{}
	if w := <-g.entered; w != "b" {
		t.Fatalf("second write by %q, want b, the first caller queued", w)
	}
	if err := <-errs["a"]; err != nil {
		t.Fatal(err)
	}
	g.release <- struct{}{}
	for _, n := range []string{"b", "c"} {
		if err := <-errs[n]; err != nil {
			t.Fatalf("%s: %v", n, err)
		}
	}
	b, _ := e.Get(context.Background())
	if !b.Has(1) || !b.Has(2) || !b.Has(3) || g.rv != 2 {
		t.Fatalf("bits 1-3 set: %v %v %v after %d writes, want all in 2", b.Has(1), b.Has(2), b.Has(3), g.rv)
	}
}

// TestEtcdCallerGivingUpLeavesTheQueue: a caller whose context ends while
// queued returns its context's error and its change is not written; the
// next caller still gets its change written.
func TestEtcdCallerGivingUpLeavesTheQueue(t *testing.T) {
	g := newGatedStorage()
	e := NewEtcd(g, "/ranges/test", "0-9", 10)
	aErr := make(chan error, 1)
	go func() { aErr <- e.Update(named("a"), set(1)) }()
	<-g.entered
	ctx, cancel := context.WithCancel(named("b"))
	bErr := make(chan error, 1)
	go func() { bErr <- e.Update(ctx, set(2)) }()
	waitQueued(e, 1)
	cancel()
	if err := <-bErr; !errors.Is(err, context.Canceled) {
		t.Fatalf("b: %v, want context.Canceled", err)
	}
	g.release <- struct{}{}
	select {
	case err := <-aErr:
		if err != nil {
			t.Fatal(err)
		}
	case w := <-g.entered:
		t.Fatalf("a write by %q after the only queued caller gave up", w)
	}
	cErr := make(chan error, 1)
	go func() { cErr <- e.Update(named("c"), set(3)) }()
	if w := <-g.entered; w != "c" {
		t.Fatalf("write by %q, want c", w)
	}
	g.release <- struct{}{}
	if err := <-cErr; err != nil {
		t.Fatal(err)
	}
	b, _ := e.Get(context.Background())
	if !b.Has(1) || b.Has(2) || !b.Has(3) {
		t.Fatalf("bits 1, 2, 3: %v %v %v; want the abandoned 2 unset", b.Has(1), b.Has(2), b.Has(3))
	}
}
