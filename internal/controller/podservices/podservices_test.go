package podservices

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

func TestKeys(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	svc := func(ns, name string, sel map[string]string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{Selector: sel}}
	}
	for _, s := range []*corev1.Service{svc("a", "web", map[string]string{"app": "web"}), svc("a", "none", nil),
		svc("a", "db", map[string]string{"app": "db"}), svc("b", "web", map[string]string{"app": "web"})} {
		_ = idx.Add(s)
	}
	lister := corelisters.NewServiceLister(idx)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "p", Labels: map[string]string{"app": "web"}}}
	if got := Keys(lister, pod); !slices.Equal(got, []string{"a/web"}) {
		t.Fatalf("pod: %v", got)
	}
	if got := Keys(lister, cache.DeletedFinalStateUnknown{Key: "a/p", Obj: pod}); !slices.Equal(got, []string{"a/web"}) {
		t.Fatalf("tombstone: %v", got)
	}
	if got := Keys(lister, "not a pod"); got != nil {
		t.Fatalf("non-pod: %v", got)
	}
}
