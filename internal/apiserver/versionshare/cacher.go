package versionshare

import (
	"reflect"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage"
	cacherstorage "k8s.io/apiserver/pkg/storage/cacher"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/tools/cache"
)

// NewCached builds the watch cache over s as k8s.io/apiserver's
// StorageWithCacher does (the cacher, and the delegator that picks it or
// s per request), with two differences: the cache's reflector reads s
// through Wrap, and an object version's field set equal to the version
// before's is that version's map (the cache keeps one per version it
// holds). destroy releases s; the returned DestroyFunc stops the cache and
// then calls it.
func NewCached(c *storagebackend.ConfigForResource, s storage.Interface, destroy factory.DestroyFunc, resourcePrefix string,
	keyFunc func(runtime.Object) (string, error), newFunc, newListFunc func() runtime.Object,
	getAttrs storage.AttrFunc, triggers storage.IndexerFuncs, indexers *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
	reflected := newSharing(s)
	cacher, err := cacherstorage.NewCacherFromConfig(cacherstorage.Config{
		Storage:             reflected,
		Versioner:           storage.APIObjectVersioner{},
		GroupResource:       c.GroupResource,
		EventsHistoryWindow: c.EventsHistoryWindow,
		ResourcePrefix:      resourcePrefix,
		KeyFunc:             keyFunc,
		NewFunc:             newFunc,
		NewListFunc:         newListFunc,
		GetAttrsFunc:        reflected.attrs(getAttrs),
		IndexerFuncs:        triggers,
		Indexers:            indexers,
		Codec:               c.Codec,
	})
	if err != nil {
		destroy()
		return nil, nil, err
	}
	delegator := cacherstorage.NewCacheDelegator(cacher, s)
	var once sync.Once
	return delegator, func() {
		once.Do(func() {
			delegator.Stop()
			cacher.Stop()
			destroy()
		})
	}, nil
}

// IsUndecorated tells a getter's decorator that gives a resource no
// watch cache (generic.UndecoratedStorage, or none) from one that does.
func IsUndecorated(d generic.StorageDecorator) bool {
	return d == nil || reflect.ValueOf(d).Pointer() == reflect.ValueOf(generic.UndecoratedStorage).Pointer()
}

// RawStorage makes the store of a resource, as generic.NewRawStorage
// does.
type RawStorage func(c *storagebackend.ConfigForResource, newFunc, newListFunc func() runtime.Object, resourcePrefix string) (storage.Interface, factory.DestroyFunc, error)

// WrapGetter returns a getter whose options are getter's with the storage
// made by raw: a resource without a watch cache (generic.UndecoratedStorage,
// or no decorator) gets raw's store alone, every other the watch cache over
// it (NewCached). raw is generic.NewRawStorage for --etcd-servers and the
// embedded member's in-process store otherwise (localetcd).
func WrapGetter(getter generic.RESTOptionsGetter, raw RawStorage) generic.RESTOptionsGetter {
	return wrappedGetter{getter: getter, raw: raw}
}

type wrappedGetter struct {
	getter generic.RESTOptionsGetter
	raw    RawStorage
}

func (w wrappedGetter) GetRESTOptions(resource schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	opts, err := w.getter.GetRESTOptions(resource, example)
	if err != nil {
		return opts, err
	}
	if IsUndecorated(opts.Decorator) {
		opts.Decorator = w.undecorated
	} else {
		opts.Decorator = w.cached
	}
	return opts, nil
}

// RawStorage is raw, for the stores no REST resource serves.
func (w wrappedGetter) RawStorage(c *storagebackend.ConfigForResource, newFunc, newListFunc func() runtime.Object, resourcePrefix string) (storage.Interface, factory.DestroyFunc, error) {
	return w.raw(c, newFunc, newListFunc, resourcePrefix)
}

// undecorated is generic.UndecoratedStorage over raw.
func (w wrappedGetter) undecorated(c *storagebackend.ConfigForResource, resourcePrefix string, _ func(runtime.Object) (string, error),
	newFunc, newListFunc func() runtime.Object, _ storage.AttrFunc, _ storage.IndexerFuncs, _ *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
	return w.raw(c, newFunc, newListFunc, resourcePrefix)
}

// cached is k8s.io/apiserver's StorageWithCacher over raw, built with
// NewCached.
func (w wrappedGetter) cached(c *storagebackend.ConfigForResource, resourcePrefix string, keyFunc func(runtime.Object) (string, error),
	newFunc, newListFunc func() runtime.Object, getAttrs storage.AttrFunc, triggers storage.IndexerFuncs, indexers *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
	s, destroy, err := w.raw(c, newFunc, newListFunc, resourcePrefix)
	if err != nil {
		return nil, nil, err
	}
	return NewCached(c, s, destroy, resourcePrefix, keyFunc, newFunc, newListFunc, getAttrs, triggers, indexers)
}
