package ipallocator

import (
	"context"
	"sync"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// FakeStore is an in-memory IPAddressStore with etcd's rules: a create of an
// existing name fails with AlreadyExists, and a call whose context is done
// fails with the context's error. Several allocators may share one
// FakeStore to play several servers on one etcd.
type FakeStore struct {
	mu      sync.Mutex
	objects map[string]*networkingv1.IPAddress
	// Creates counts successful creates.
	Creates int
}

// NewFakeStore returns an empty store.
func NewFakeStore() *FakeStore {
	return &FakeStore{objects: map[string]*networkingv1.IPAddress{}}
}

func (f *FakeStore) Create(ctx context.Context, ip *networkingv1.IPAddress) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.objects[ip.Name]; ok {
		return apierrors.NewAlreadyExists(networkingv1.Resource("ipaddresses"), ip.Name)
	}
	f.objects[ip.Name] = ip.DeepCopy()
	f.Creates++
	return nil
}

func (f *FakeStore) Get(ctx context.Context, name string) (*networkingv1.IPAddress, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if ip, ok := f.objects[name]; ok {
		return ip.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(networkingv1.Resource("ipaddresses"), name)
}

func (f *FakeStore) Delete(ctx context.Context, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.objects, name)
	return nil
}

// Names returns the stored IPAddress names.
func (f *FakeStore) Names() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, 0, len(f.objects))
	for n := range f.objects {
		out = append(out, n)
	}
	return out
}
