package versionshare

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"
)

// Wrap returns s for the watch cache's reflector (cacher.Config.Storage):
// the objects its lists and watches return share memory with the version
// of the same object seen before them (Share). Every other call goes to s
// unchanged. Give the watch cache's delegator s itself, so that requests
// the cache does not serve, and all writes, never meet shared objects.
func Wrap(s storage.Interface) storage.Interface {
	return &sharing{Interface: s, last: map[objectKey]runtime.Object{}}
}

type objectKey struct{ namespace, name string }

// sharing is the reflector's storage; last holds the version of each
// object the reflector saw last (the one the watch cache holds now).
type sharing struct {
	storage.Interface

	mu   sync.Mutex
	last map[objectKey]runtime.Object
}

// GetList lists through s and starts last afresh from the items: the
// reflector lists when it starts and after its watch fails, and replaces
// the watch cache's contents with what it lists.
func (s *sharing) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	if err := s.Interface.GetList(ctx, key, opts, listObj); err != nil {
		return err
	}
	items, err := meta.ExtractList(listObj)
	if err != nil {
		return nil // not a list we can read: nothing is shared
	}
	last := make(map[objectKey]runtime.Object, len(items))
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, obj := range items {
		if k, ok := keyOf(obj); ok {
			if prev := s.last[k]; prev != nil {
				Share(obj, prev)
			}
			last[k] = obj
		}
	}
	s.last = last
	return nil
}

// Watch watches through s; each added or modified object shares with the
// version seen before it, and a deleted one is forgotten.
func (s *sharing) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	w, err := s.Interface.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	return newWatcher(w, s.observe), nil
}

func (s *sharing) observe(e watch.Event) {
	k, ok := keyOf(e.Object)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e.Type {
	case watch.Added, watch.Modified:
		if prev := s.last[k]; prev != nil {
			Share(e.Object, prev)
		}
		s.last[k] = e.Object
	case watch.Deleted:
		delete(s.last, k)
	}
}

func keyOf(obj runtime.Object) (objectKey, bool) {
	if obj == nil {
		return objectKey{}, false
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return objectKey{}, false
	}
	return objectKey{m.GetNamespace(), m.GetName()}, true
}
