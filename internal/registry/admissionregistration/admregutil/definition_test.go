package admregutil

import (
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestCells(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}
	for _, c := range []struct {
		got, want string
	}{
		{ParamKindCell(nil), "<unset>"},
		{ParamKindCell(&v1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}), "v1/ConfigMap"},
		{ParamRefCell(nil), "<unset>"},
		{ParamRefCell(&v1.ParamRef{Name: "p", Namespace: "ns"}), "ns/p"},
		{ParamRefCell(&v1.ParamRef{Name: "p"}), "*/p"},
		{ParamRefCell(&v1.ParamRef{Selector: sel}), sel.String()},
		{ParamRefCell(&v1.ParamRef{}), "<unset>"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
