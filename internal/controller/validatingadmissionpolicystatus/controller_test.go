package validatingadmissionpolicystatus

import (
	"context"
	"encoding/json"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// checker warns about every validation expression.
type checker struct{ checked []string }

func (c *checker) Check(p *v1.ValidatingAdmissionPolicy) []v1.ExpressionWarning {
	c.checked = append(c.checked, p.Name)
	var out []v1.ExpressionWarning
	for range p.Spec.Validations {
		out = append(out, v1.ExpressionWarning{FieldRef: "spec.validations[0].expression", Warning: "no such field"})
	}
	return out
}

func policy(name string, generation, observed int64, validations int) *v1.ValidatingAdmissionPolicy {
	p := &v1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: name, Generation: generation}}
	p.Status.ObservedGeneration = observed
	for i := 0; i < validations; i++ {
		p.Spec.Validations = append(p.Spec.Validations, v1.Validation{Expression: "object.nope"})
	}
	return p
}

func TestSync(t *testing.T) {
	cases := map[string]struct {
		policy  *v1.ValidatingAdmissionPolicy
		applied bool
		want    []v1.ExpressionWarning
	}{
		"new generation, warnings": {policy("p", 2, 1, 1), true,
			[]v1.ExpressionWarning{{FieldRef: "spec.validations[0].expression", Warning: "no such field"}}},
		"new generation, clean": {policy("p", 1, 0, 0), true, nil},
		"current generation":    {policy("p", 3, 3, 1), false, nil},
		"deleted":               {nil, false, nil},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			client := fake.NewClientset()
			f := informers.NewSharedInformerFactory(client, 0)
			ck := &checker{}
			c := New(client, f.Admissionregistration().V1().ValidatingAdmissionPolicies(), ck)
			if tc.policy != nil {
				_ = f.Admissionregistration().V1().ValidatingAdmissionPolicies().Informer().GetStore().Add(tc.policy)
			}
			if err := c.sync(context.Background(), "p"); err != nil && tc.applied {
				// The fake tracker has no such object to apply the status
				// to; the request made is what is checked below.
				t.Logf("apply: %v", err)
			}
			var patches []clienttesting.PatchAction
			for _, a := range client.Actions() {
				if p, ok := a.(clienttesting.PatchAction); ok {
					patches = append(patches, p)
				}
			}
			if !tc.applied {
				if len(patches) != 0 || len(ck.checked) != 0 {
					t.Fatalf("checked %v, patched %v; want nothing", ck.checked, patches)
				}
				return
			}
			if len(patches) != 1 {
				t.Fatalf("patches %v, want one apply of status", patches)
			}
			p := patches[0]
			if p.GetPatchType() != types.ApplyPatchType || p.GetSubresource() != "status" || p.GetName() != "p" {
				t.Errorf("patch %s %s/%s, want an apply of p/status", p.GetPatchType(), p.GetName(), p.GetSubresource())
			}
			var got v1.ValidatingAdmissionPolicy
			if err := json.Unmarshal(p.GetPatch(), &got); err != nil {
				t.Fatal(err)
			}
			if got.Status.ObservedGeneration != tc.policy.Generation || got.Status.TypeChecking == nil {
				t.Fatalf("status %+v, want observedGeneration %d and typeChecking", got.Status, tc.policy.Generation)
			}
			if w := got.Status.TypeChecking.ExpressionWarnings; len(w) != len(tc.want) || (len(w) > 0 && w[0] != tc.want[0]) {
				t.Errorf("warnings %+v, want %+v", w, tc.want)
			}
		})
	}
}
