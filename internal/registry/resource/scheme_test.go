package resource

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestFieldLabelConversion(t *testing.T) {
	pods := &Definition{GroupVersion: corev1.SchemeGroupVersion, Kind: "Pod", Namespaced: true,
		New:               func() runtime.Object { return &corev1.Pod{} },
		FieldLabelNames:   []string{"spec.nodeName"},
		FieldLabelAliases: map[string]string{"spec.host": "spec.nodeName"}}
	nodes := &Definition{GroupVersion: corev1.SchemeGroupVersion, Kind: "Node",
		New: func() runtime.Object { return &corev1.Node{} }, FieldLabelNames: []string{"spec.unschedulable"}}
	rs := &Definition{GroupVersion: appsv1.SchemeGroupVersion, Kind: "ReplicaSet", Namespaced: true,
		New: func() runtime.Object { return &appsv1.ReplicaSet{} }}
	scheme := runtime.NewScheme()
	if err := AddToScheme(scheme, []*Definition{pods, nodes, rs}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		def         *Definition
		label, want string
		wantErr     string
	}{
		{pods, "spec.nodeName", "spec.nodeName", ""},
		{pods, "spec.host", "spec.nodeName", ""},
		{pods, "metadata.namespace", "metadata.namespace", ""},
		{pods, "spec.bogus", "", "field label not supported: spec.bogus"},
		{nodes, "metadata.name", "metadata.name", ""},
		{nodes, "metadata.namespace", "", "field label not supported: metadata.namespace"},
		// No labels of its own: the scheme's default conversion and text.
		{rs, "metadata.namespace", "metadata.namespace", ""},
		{rs, "status.replicas", "", `"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"`},
	} {
		got, _, err := scheme.ConvertFieldLabel(tc.def.GroupVersionKind(), tc.label, "v")
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if got != tc.want || gotErr != tc.wantErr {
			t.Errorf("%s %s: got %q, %q; want %q, %q", tc.def.Kind, tc.label, got, gotErr, tc.want, tc.wantErr)
		}
	}
}
