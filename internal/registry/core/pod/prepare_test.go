package pod

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPrepareForCreateMergesAndCopies: a new pod's matchLabelKeys become
// selector expressions with its own label values, and a deprecated
// AppArmor annotation becomes the container's profile.
func TestPrepareForCreateMergesAndCopies(t *testing.T) {
	p := testPod(func(p *corev1.Pod) {
		p.Labels = map[string]string{"app": "a", "rev": "7"}
		p.Annotations = map[string]string{corev1.DeprecatedAppArmorBetaContainerAnnotationKeyPrefix + "c": "runtime/default"}
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone",
			WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}},
			MatchLabelKeys: []string{"rev", "absent"}}}
	})
	Definition().PrepareForCreate(context.Background(), p)
	exprs := p.Spec.TopologySpreadConstraints[0].LabelSelector.MatchExpressions
	if len(exprs) != 1 || exprs[0].Key != "rev" || exprs[0].Operator != metav1.LabelSelectorOpIn || exprs[0].Values[0] != "7" {
		t.Errorf("merged expressions %+v", exprs)
	}
	sc := p.Spec.Containers[0].SecurityContext
	if sc == nil || sc.AppArmorProfile == nil || sc.AppArmorProfile.Type != corev1.AppArmorProfileTypeRuntimeDefault {
		t.Errorf("security context %+v", sc)
	}
}

func TestValidDeletionCost(t *testing.T) {
	for v, ok := range map[string]bool{"0": true, "-5": true, "2147483647": true, "2147483648": false, "+1": false, "007": false, "1e3": false, "": false} {
		if validDeletionCost(v) != ok {
			t.Errorf("%q: %v, want %v", v, !ok, ok)
		}
	}
}
