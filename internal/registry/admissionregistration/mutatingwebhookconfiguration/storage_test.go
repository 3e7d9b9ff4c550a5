package mutatingwebhookconfiguration

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
	if want := []string{"Webhooks", "Age"}; !reflect.DeepEqual(cols, want) {
		t.Errorf("columns %q, want %q", cols, want)
	}
	row := d.Row(&v1.MutatingWebhookConfiguration{Webhooks: make([]v1.MutatingWebhook, 3)})
	if want := []interface{}{int64(3), "<unknown>"}; !reflect.DeepEqual(row, want) {
		t.Errorf("row %#v, want %#v", row, want)
	}
	if d.Namespaced || !d.Generation || !d.DisallowUnconditionalUpdate || d.AllowCreateOnUpdate || d.GroupVersion != v1.SchemeGroupVersion {
		t.Errorf("definition flags: %+v", d)
	}
}
