package versionshare

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
)

type fixedGetter struct{ d generic.StorageDecorator }

func (g fixedGetter) GetRESTOptions(schema.GroupResource, runtime.Object) (generic.RESTOptions, error) {
	return generic.RESTOptions{Decorator: g.d, ResourcePrefix: "/x"}, nil
}

// A resource without a watch cache keeps its decorator; every watch cache
// becomes StorageWithCacher; the rest of the options pass unchanged.
func TestWrapGetterReplacesOnlyTheWatchCache(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   generic.StorageDecorator
		want generic.StorageDecorator
	}{
		{"undecorated", generic.UndecoratedStorage, generic.UndecoratedStorage},
		{"watch cache", genericregistry.StorageWithCacher(), StorageWithCacher},
	} {
		opts, err := WrapGetter(fixedGetter{tc.in}).GetRESTOptions(schema.GroupResource{Resource: "x"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if reflect.ValueOf(opts.Decorator).Pointer() != reflect.ValueOf(tc.want).Pointer() {
			t.Errorf("%s: got another decorator than want", tc.name)
		}
		if opts.ResourcePrefix != "/x" {
			t.Errorf("%s: resource prefix %q, want the getter's /x", tc.name, opts.ResourcePrefix)
		}
	}
	if opts, _ := WrapGetter(fixedGetter{nil}).GetRESTOptions(schema.GroupResource{}, nil); opts.Decorator != nil {
		t.Error("no decorator became one")
	}
}
