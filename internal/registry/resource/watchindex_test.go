package resource

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/storage"
)

func TestWatchIndex(t *testing.T) {
	if triggers, indexers := WatchIndex(&Definition{}); triggers != nil || indexers != nil {
		t.Fatalf("no IndexedField: got %v, %v", triggers, indexers)
	}
	def := &Definition{IndexedField: "spec.nodeName",
		IndexedValue: func(obj runtime.Object) string { return obj.(*corev1.Pod).Spec.NodeName }}
	triggers, indexers := WatchIndex(def)
	p := &corev1.Pod{Spec: corev1.PodSpec{NodeName: "n1"}}
	if got := triggers["spec.nodeName"](p); got != "n1" {
		t.Errorf("trigger: %q", got)
	}
	index := (*indexers)[storage.FieldIndex("spec.nodeName")]
	if got, err := index(p); err != nil || !reflect.DeepEqual(got, []string{"n1"}) {
		t.Errorf("index: %q, %v", got, err)
	}
	if _, err := index("not an object"); err == nil {
		t.Error("index of a non-object: no error")
	}
	if len(triggers) != 1 || len(*indexers) != 1 {
		t.Errorf("want one trigger and one index: %v, %v", triggers, *indexers)
	}
}
