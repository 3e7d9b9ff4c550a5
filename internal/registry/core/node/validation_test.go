package node

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestDefaultPodCIDRs(t *testing.T) {
	for _, tc := range []struct {
		name      string
		in        corev1.NodeSpec
		cidr      string
		cidrsWant string
	}{
		{"plural only", corev1.NodeSpec{PodCIDRs: []string{"10.0.0.0/24", "fd00::/64"}}, "10.0.0.0/24", "10.0.0.0/24,fd00::/64"},
		{"singular only", corev1.NodeSpec{PodCIDR: "10.0.0.0/24"}, "10.0.0.0/24", "10.0.0.0/24"},
		{"singular wins", corev1.NodeSpec{PodCIDR: "10.0.1.0/24", PodCIDRs: []string{"10.0.0.0/24"}}, "10.0.1.0/24", "10.0.1.0/24"},
	} {
		n := &corev1.Node{Spec: tc.in}
		Default(n)
		if n.Spec.PodCIDR != tc.cidr || strings.Join(n.Spec.PodCIDRs, ",") != tc.cidrsWant {
			t.Errorf("%s: %q %v", tc.name, n.Spec.PodCIDR, n.Spec.PodCIDRs)
		}
	}
}

func TestValidateTaintsAndUpdates(t *testing.T) {
	n := &corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule},
		{Key: "k", Value: "x", Effect: corev1.TaintEffectNoSchedule}, {Key: "j"}}}}
	got := validate(n).ToAggregate().Error()
	for _, want := range []string{
		`metadata.taints[1]: Duplicate value: {"Key":"k","Value":"x","Effect":"NoSchedule","TimeAdded":null}: taints must be unique by key and effect pair`,
		"metadata.taints[2].effect: Required value",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("errors %q lack %q", got, want)
		}
	}
	old := &corev1.Node{Spec: corev1.NodeSpec{PodCIDRs: []string{"10.0.0.0/24"}, ProviderID: "a://1"}}
	upd := &corev1.Node{Spec: corev1.NodeSpec{PodCIDRs: []string{"10.0.1.0/24"}, ProviderID: "a://2"}}
	got = validateUpdate(upd, old).ToAggregate().Error()
	for _, want := range []string{"spec.podCIDRs: Forbidden", "spec.providerID: Forbidden"} {
		if !strings.Contains(got, want) {
			t.Errorf("update errors %q lack %q", got, want)
		}
	}
}
