package versionshare

import (
	"context"
	"maps"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/storage"

	"github.com/svcplane/svcplane/internal/objshare"
)

// Wrap returns s for the watch cache's reflector (cacher.Config.Storage):
// the objects its lists and watches return share memory (objshare.Share)
// with the version of the same object seen before them or, for an object
// seen first, with the last object of its objshare.Group (a sibling).
// Every other call goes to s unchanged. Give the watch cache's delegator
// s itself, so that requests the cache does not serve, and all writes,
// never meet shared objects.
func Wrap(s storage.Interface) storage.Interface {
	return newSharing(s)
}

func newSharing(s storage.Interface) *sharing {
	return &sharing{Interface: s, last: map[objectKey]*version{}, groups: map[objshare.Group]objectKey{}}
}

type objectKey struct{ namespace, name string }

// version is the version of an object the reflector saw last, and the
// field set the watch cache computed for it or, until it does, for the
// version before (attrs).
type version struct {
	obj    runtime.Object
	fields fields.Set
}

// sharing is the reflector's storage; last holds the version of each
// object the reflector saw last (the one the watch cache holds now), and
// groups the object of each group added last.
type sharing struct {
	storage.Interface

	mu     sync.Mutex
	last   map[objectKey]*version
	groups map[objshare.Group]objectKey
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
	s.mu.Lock()
	defer s.mu.Unlock()
	prevs := s.last
	s.last, s.groups = make(map[objectKey]*version, len(items)), map[objshare.Group]objectKey{}
	for _, obj := range items {
		s.shareLocked(obj, prevs, true)
	}
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
	s.mu.Lock()
	defer s.mu.Unlock()
	switch e.Type {
	case watch.Added, watch.Modified:
		s.shareLocked(e.Object, s.last, e.Type == watch.Added)
	case watch.Deleted:
		// An object whose group changed since it was added (an orphaned
		// pod) leaves its old group naming a gone key: no sibling there
		// until the group's next addition.
		if m, err := meta.Accessor(e.Object); err == nil {
			k := objectKey{m.GetNamespace(), m.GetName()}
			delete(s.last, k)
			if g := objshare.GroupOf(m); s.groups[g] == k {
				delete(s.groups, g)
			}
		}
	}
}

// shareLocked makes obj share with its version in prevs or else with its
// group's last added object, and makes it the last of its key and, if it
// was added, of its group: a new object is most like the one added before
// it (the same fields set, as many conditions and managedFields entries).
func (s *sharing) shareLocked(obj runtime.Object, prevs map[objectKey]*version, added bool) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return // not an object we can read: nothing is shared
	}
	k, g := objectKey{m.GetNamespace(), m.GetName()}, objshare.GroupOf(m)
	v := &version{obj: obj}
	if prev := prevs[k]; prev != nil {
		objshare.Share(obj, prev.obj)
		v.fields = prev.fields
	} else if sibling := s.last[s.groups[g]]; sibling != nil {
		objshare.Share(obj, sibling.obj)
	}
	s.last[k] = v
	if added {
		s.groups[g] = k
	}
}

// attrs is getAttrs for the watch cache over s: the field set of an
// object whose fields did not change since its previous version is that
// version's map rather than a copy (the cache keeps one per version it
// holds, and reads them only to filter).
func (s *sharing) attrs(getAttrs storage.AttrFunc) storage.AttrFunc {
	if getAttrs == nil {
		return nil
	}
	return func(obj runtime.Object) (labels.Set, fields.Set, error) {
		l, f, err := getAttrs(obj)
		if err != nil {
			return l, f, err
		}
		m, err := meta.Accessor(obj)
		if err != nil {
			return l, f, nil
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		// Only for the version the reflector holds now: the cache computes
		// attributes of what the reflector passes it, deleted objects too.
		if v := s.last[objectKey{m.GetNamespace(), m.GetName()}]; v != nil && v.obj == obj {
			if v.fields != nil && maps.Equal(v.fields, f) {
				f = v.fields
			} else {
				v.fields = f
			}
		}
		return l, f, nil
	}
}
