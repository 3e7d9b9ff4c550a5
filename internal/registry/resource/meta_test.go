package resource

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidateKubeFinalizerName(t *testing.T) {
	for name, ok := range map[string]bool{
		"kubernetes": true, "orphan": true, "foregroundDeletion": true, "example.com/x": true,
		"cleanup": false, "": false,
	} {
		if got := len(ValidateKubeFinalizerName(name, field.NewPath("f"))) == 0; got != ok {
			t.Errorf("%q: accepted %v, want %v", name, got, ok)
		}
	}
}

// TestMetaChecksPerKind: how often an update reports a bad label and an
// unqualified finalizer depends on the kind's rules, as upstream's (a
// client sees every duplicate).
func TestMetaChecksPerKind(t *testing.T) {
	count := func(errs field.ErrorList) (labels, finalizers int) {
		for _, e := range errs {
			switch e.Field {
			case "metadata.labels":
				labels++
			case "metadata.finalizers[0]":
				finalizers++
			}
		}
		return labels, finalizers
	}
	bad := metav1.ObjectMeta{Name: "rs", Namespace: "ns", ResourceVersion: "1", Labels: map[string]string{"a b": "c"}, Finalizers: []string{"cleanup"}}
	for _, tc := range []struct {
		name                  string
		meta                  MetaValidation
		update                UpdateMetaChecks
		create, upd           int // label errors
		createFin, updateFins int
	}{
		{"core", MetaCore, UpdateMetaTransitionAndNew, 1, 2, 1, 2},
		{"core, transition only", MetaCore, UpdateMetaTransition, 1, 1, 1, 1},
		{"core, new only", MetaCore, UpdateMetaNew, 1, 1, 1, 1},
		{"generic", MetaGeneric, UpdateMetaTransitionAndNew, 1, 2, 0, 0},
		{"none", MetaNone, UpdateMetaTransitionAndNew, 0, 0, 0, 0},
	} {
		def := testDef()
		def.MetaValidation, def.UpdateMeta = tc.meta, tc.update
		s := newStrategy(runtime.NewScheme(), def)
		obj := &appsv1.ReplicaSet{ObjectMeta: bad}
		l, f := count(s.Validate(context.Background(), obj))
		if l != tc.create || f != tc.createFin {
			t.Errorf("%s: create reports labels %d, finalizers %d; want %d, %d", tc.name, l, f, tc.create, tc.createFin)
		}
		old := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs", Namespace: "ns", ResourceVersion: "1"}}
		l, f = count(s.ValidateUpdate(context.Background(), obj, old))
		if l != tc.upd || f != tc.updateFins {
			t.Errorf("%s: update reports labels %d, finalizers %d; want %d, %d", tc.name, l, f, tc.upd, tc.updateFins)
		}
	}
}

func TestKeepGenerateName(t *testing.T) {
	def := testDef()
	if got := newStrategy(runtime.NewScheme(), def).GenerateName("x-"); len(got) != len("x-")+5 {
		t.Errorf("random suffix: %q", got)
	}
	def.KeepGenerateName = true
	if got := newStrategy(runtime.NewScheme(), def).GenerateName("x-"); got != "x-" {
		t.Errorf("kept name: %q", got)
	}
}
