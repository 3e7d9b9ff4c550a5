package resource

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/client-go/tools/cache"
)

// WatchIndex returns the watch cache's trigger and index of def's
// IndexedField (nil, nil without one), as upstream's StoreOptions give
// them for the kind.
func WatchIndex(def *Definition) (storage.IndexerFuncs, *cache.Indexers) {
	if def.IndexedField == "" {
		return nil, nil
	}
	value := def.IndexedValue
	triggers := storage.IndexerFuncs{def.IndexedField: value}
	indexers := cache.Indexers{storage.FieldIndex(def.IndexedField): func(obj interface{}) ([]string, error) {
		o, ok := obj.(runtime.Object)
		if !ok {
			return nil, fmt.Errorf("not an object: %T", obj)
		}
		return []string{value(o)}, nil
	}}
	return triggers, &indexers
}
