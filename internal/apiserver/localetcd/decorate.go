package localetcd

import (
	"errors"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/tools/cache"

	"github.com/svcplane/svcplane/internal/apiserver/versionshare"
)

var errClosed = errors.New("embedded etcd storage is closed")

// Undecorated is generic.UndecoratedStorage over b: the store alone.
func (b *Backend) Undecorated(c *storagebackend.ConfigForResource, resourcePrefix string, _ func(runtime.Object) (string, error),
	newFunc, newListFunc func() runtime.Object, _ storage.AttrFunc, _ storage.IndexerFuncs, _ *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
	return b.Raw(c, newFunc, newListFunc, resourcePrefix)
}

// Cached is k8s.io/apiserver's StorageWithCacher over b: the watch cache
// with the store under it, and the delegator that picks one of them per
// request (versionshare.NewCached: the versions the cache holds share
// memory).
func (b *Backend) Cached(c *storagebackend.ConfigForResource, resourcePrefix string, keyFunc func(runtime.Object) (string, error),
	newFunc, newListFunc func() runtime.Object, getAttrs storage.AttrFunc, triggers storage.IndexerFuncs, indexers *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
	s, destroyStore, err := b.Raw(c, newFunc, newListFunc, resourcePrefix)
	if err != nil {
		return nil, nil, err
	}
	return versionshare.NewCached(c, s, destroyStore, resourcePrefix, keyFunc, newFunc, newListFunc, getAttrs, triggers, indexers)
}

// Wrap returns a getter whose options are getter's with the storage made
// by b: generic.UndecoratedStorage becomes b.Undecorated and the watch
// cache (every other decorator k8s.io/apiserver's getters give)
// b.Cached.
func (b *Backend) Wrap(getter generic.RESTOptionsGetter) generic.RESTOptionsGetter {
	return wrapped{getter: getter, b: b}
}

type wrapped struct {
	getter generic.RESTOptionsGetter
	b      *Backend
}

func (w wrapped) GetRESTOptions(resource schema.GroupResource, example runtime.Object) (generic.RESTOptions, error) {
	opts, err := w.getter.GetRESTOptions(resource, example)
	if err != nil {
		return opts, err
	}
	if versionshare.IsUndecorated(opts.Decorator) {
		opts.Decorator = w.b.Undecorated
	} else {
		opts.Decorator = w.b.Cached
	}
	return opts, nil
}

// RawStorage is generic.NewRawStorage for the options w gives.
func (w wrapped) RawStorage(c *storagebackend.ConfigForResource, newFunc, newListFunc func() runtime.Object, resourcePrefix string) (storage.Interface, factory.DestroyFunc, error) {
	return w.b.Raw(c, newFunc, newListFunc, resourcePrefix)
}
