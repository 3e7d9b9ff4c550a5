package lease

import (
	"context"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidateSpec(t *testing.T) {
	s := func(v string) *coordinationv1.CoordinatedLeaseStrategy {
		x := coordinationv1.CoordinatedLeaseStrategy(v)
		return &x
	}
	holder := "b"
	for _, tc := range []struct {
		name string
		spec coordinationv1.LeaseSpec
		want []string
	}{
		{"known strategy", coordinationv1.LeaseSpec{Strategy: s("OldestEmulationVersion")}, nil},
		{"own qualified strategy", coordinationv1.LeaseSpec{Strategy: s("example.com/mine")}, nil},
		{"unknown strategy", coordinationv1.LeaseSpec{Strategy: s("Random")}, []string{`spec.strategy.strategy: Unsupported value: "Random": supported values: "OldestEmulationVersion"`}},
		{"preferred holder alone", coordinationv1.LeaseSpec{PreferredHolder: &holder}, []string{"spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined"}},
	} {
		errs := validateSpec(&tc.spec, field.NewPath("spec"))
		if len(errs) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, errs, tc.want)
			continue
		}
		for i := range errs {
			if errs[i].Error() != tc.want[i] {
				t.Errorf("%s: %q, want %q", tc.name, errs[i].Error(), tc.want[i])
			}
		}
	}
}

// TestGatedFieldsDropped: with CoordinatedLeaderElection off a new lease
// loses strategy and preferredHolder; an update keeps them only if stored.
func TestGatedFieldsDropped(t *testing.T) {
	def := Definition()
	st := coordinationv1.CoordinatedLeaseStrategy("OldestEmulationVersion")
	l := &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{Strategy: &st}}
	def.PrepareForCreate(context.Background(), l)
	if l.Spec.Strategy != nil {
		t.Error("strategy kept on create")
	}
	old := &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{Strategy: &st}}
	upd := old.DeepCopy()
	def.PrepareForUpdate(context.Background(), upd, old)
	if upd.Spec.Strategy == nil {
		t.Error("stored strategy dropped on update")
	}
}
