package admregutil

import (
	"context"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/svcplane/svcplane/internal/registry/resource"
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

func TestStaticSuffixWarning(t *testing.T) {
	d := Complete(&resource.Definition{})
	w := d.Warnings(context.Background(), &v1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "x.static.k8s.io"}}, nil)
	if len(w) != 1 || w[0] != `metadata.name: names ending with ".static.k8s.io" are reserved for static manifest-based configurations and cannot be managed via the API` {
		t.Errorf("warnings %q", w)
	}
	if w := d.Warnings(context.Background(), &v1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "static.k8s.io.x"}}, nil); w != nil {
		t.Errorf("warnings %q for an ordinary name", w)
	}
}
