package drift

import (
	"reflect"
	"sort"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	podstorage "k8s.io/kubernetes/pkg/registry/core/pod/storage"

	"github.com/svcplane/svcplane/internal/registry/core/pod"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// watchIndexRecorder is a RESTOptionsGetter whose decorator keeps the
// watch cache trigger and indexers a store asks for.
type watchIndexRecorder struct {
	triggers storage.IndexerFuncs
	indexers *cache.Indexers
}

func (r *watchIndexRecorder) GetRESTOptions(gr schema.GroupResource, _ runtime.Object) (generic.RESTOptions, error) {
	return generic.RESTOptions{
		StorageConfig:  &storagebackend.ConfigForResource{GroupResource: gr},
		ResourcePrefix: gr.Resource,
		Decorator: func(_ *storagebackend.ConfigForResource, _ string, _ func(runtime.Object) (string, error),
			_, _ func() runtime.Object, _ storage.AttrFunc, triggers storage.IndexerFuncs, indexers *cache.Indexers) (storage.Interface, factory.DestroyFunc, error) {
			r.triggers, r.indexers = triggers, indexers
			return nil, func() {}, nil
		},
	}, nil
}

// TestPodWatchIndexMatchesUpstream: the pods store asks the watch cache
// for the trigger and index upstream's pod storage asks for, with the
// same values on the same pods.
func TestPodWatchIndexMatchesUpstream(t *testing.T) {
	var up, ours watchIndexRecorder
	if _, err := podstorage.NewStorage(&up, nil, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := resource.NewStore(pod.Definition(), legacyscheme.Scheme, &ours); err != nil {
		t.Fatal(err)
	}
	if got, want := triggerNames(ours.triggers), triggerNames(up.triggers); !reflect.DeepEqual(got, want) {
		t.Fatalf("triggers: ours %v, upstream %v", got, want)
	}
	if got, want := indexNames(ours.indexers), indexNames(up.indexers); !reflect.DeepEqual(got, want) {
		t.Fatalf("indexes: ours %v, upstream %v", got, want)
	}
	for _, p := range []*corev1.Pod{
		{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}, Spec: corev1.PodSpec{NodeName: "n1"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: "ns"}},
	} {
		internal := &api.Pod{}
		if err := legacyscheme.Scheme.Convert(p, internal, nil); err != nil {
			t.Fatal(err)
		}
		for name, f := range up.triggers {
			if got, want := ours.triggers[name](p), f(internal); got != want {
				t.Errorf("trigger %s of %s: ours %q, upstream %q", name, p.Name, got, want)
			}
		}
		for name, f := range *up.indexers {
			want, err := f(internal)
			if err != nil {
				t.Fatal(err)
			}
			got, err := (*ours.indexers)[name](p)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("index %s of %s: ours %q, upstream %q", name, p.Name, got, want)
			}
		}
	}
}

func triggerNames(f storage.IndexerFuncs) []string {
	var out []string
	for k := range f {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func indexNames(ix *cache.Indexers) []string {
	var out []string
	if ix != nil {
		for k := range *ix {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
