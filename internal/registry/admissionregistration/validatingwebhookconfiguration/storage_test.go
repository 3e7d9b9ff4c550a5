package validatingwebhookconfiguration

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
	row := d.Row(&v1.ValidatingWebhookConfiguration{Webhooks: make([]v1.ValidatingWebhook, 2)})
	if want := []interface{}{int64(2), "<unknown>"}; !reflect.DeepEqual(row, want) {
		t.Errorf("row %#v, want %#v", row, want)
	}
	if d.Namespaced || !d.Generation || !d.DisallowUnconditionalUpdate || d.AllowCreateOnUpdate || d.GroupVersion != v1.SchemeGroupVersion {
		t.Errorf("definition flags: %+v", d)
	}
}
