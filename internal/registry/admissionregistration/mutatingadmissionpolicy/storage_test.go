package mutatingadmissionpolicy

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
)

// TestDefinition: kube-apiserver's columns and flags for the kind.
func TestDefinition(t *testing.T) {
	d := Definition()
	var cols []string
	for _, c := range d.Columns {
		cols = append(cols, c.Name)
	}
	if want := []string{"Mutations", "ParamKind", "Age"}; !reflect.DeepEqual(cols, want) {
		t.Errorf("columns %q, want %q", cols, want)
	}
	row := d.Row(&v1.MutatingAdmissionPolicy{Spec: v1.MutatingAdmissionPolicySpec{Mutations: make([]v1.Mutation, 1)}})
	if want := []interface{}{int64(1), "<unset>", "<unknown>"}; !reflect.DeepEqual(row, want) {
		t.Errorf("row %#v, want %#v", row, want)
	}
	if d.Namespaced || !d.Generation || !d.DisallowUnconditionalUpdate || d.AllowCreateOnUpdate || d.GroupVersion != v1.SchemeGroupVersion {
		t.Errorf("definition flags: %+v", d)
	}
}
