package versionshare

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
)

type fixedGetter struct{ d generic.StorageDecorator }

func (g fixedGetter) GetRESTOptions(schema.GroupResource, runtime.Object) (generic.RESTOptions, error) {
	return generic.RESTOptions{Decorator: g.d, ResourcePrefix: "/x"}, nil
}

// TestWrapGetterKeepsTheCacheChoice: a resource without a watch cache
// (generic.UndecoratedStorage, or no decorator) gets raw's store alone,
// every other the watch cache over raw's store (NewCached, which
// localetcd's tests run over a real store); the rest of the options pass
// unchanged, and the getter makes raw's stores for keys no resource serves.
func TestWrapGetterKeepsTheCacheChoice(t *testing.T) {
	var made []string
	store := &fakeStore{}
	raw := func(_ *storagebackend.ConfigForResource, _, _ func() runtime.Object, prefix string) (storage.Interface, factory.DestroyFunc, error) {
		made = append(made, prefix)
		return store, func() {}, nil
	}
	rc := storagebackend.NewDefaultConfig("/registry", nil).ForResource(schema.GroupResource{Resource: "x"})
	cached := reflect.ValueOf(wrappedGetter{}.cached).Pointer()
	for _, tc := range []struct {
		name   string
		in     generic.StorageDecorator
		cached bool
	}{
		{"undecorated", generic.UndecoratedStorage, false},
		{"nil", nil, false},
		{"watch cache", genericregistry.StorageWithCacher(), true},
	} {
		made = nil
		g := WrapGetter(fixedGetter{tc.in}, raw)
		opts, err := g.GetRESTOptions(schema.GroupResource{Resource: "x"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if opts.ResourcePrefix != "/x" {
			t.Errorf("%s: resource prefix %q, want the getter's /x", tc.name, opts.ResourcePrefix)
		}
		if got := reflect.ValueOf(opts.Decorator).Pointer() == cached; got != tc.cached {
			t.Errorf("%s: watch cache %v, want %v", tc.name, got, tc.cached)
		}
		if !tc.cached {
			s, _, err := opts.Decorator(rc, "/x", nil, nil, nil, nil, nil, nil)
			if err != nil || s != store || len(made) != 1 || made[0] != "/x" {
				t.Errorf("%s: store %v (err %v), raw stores made %q; want raw's for /x", tc.name, s, err, made)
			}
		}
		s, _, err := g.(wrappedGetter).RawStorage(rc, nil, nil, "/ranges")
		if err != nil || s != store || made[len(made)-1] != "/ranges" {
			t.Errorf("%s: RawStorage made %q (err %v), want raw's store for /ranges", tc.name, made, err)
		}
	}
}
