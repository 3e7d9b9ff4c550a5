package pod

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestComputeQOS(t *testing.T) {
	rl := func(kv ...string) corev1.ResourceList {
		l := corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return l
	}
	c := func(req, lim corev1.ResourceList) corev1.Container {
		return corev1.Container{Resources: corev1.ResourceRequirements{Requests: req, Limits: lim}}
	}
	for _, tc := range []struct {
		name       string
		containers []corev1.Container
		init       []corev1.Container
		want       corev1.PodQOSClass
	}{
		{"nothing", []corev1.Container{c(nil, nil)}, nil, corev1.PodQOSBestEffort},
		{"only an extended resource", []corev1.Container{c(rl("example.com/x", "1"), rl("example.com/x", "1"))}, nil, corev1.PodQOSBestEffort},
		{"zero cpu request", []corev1.Container{c(rl("cpu", "0"), nil)}, nil, corev1.PodQOSBestEffort},
		{"equal requests and limits", []corev1.Container{c(rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"))}, nil, corev1.PodQOSGuaranteed},
		{"limits only", []corev1.Container{c(nil, rl("cpu", "1", "memory", "1Gi"))}, nil, corev1.PodQOSBurstable},
		{"memory limit missing", []corev1.Container{c(rl("cpu", "1"), rl("cpu", "1"))}, nil, corev1.PodQOSBurstable},
		{"init container without limits", []corev1.Container{c(rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"))},
			[]corev1.Container{c(rl("cpu", "1"), nil)}, corev1.PodQOSBurstable},
		{"init container requests only", []corev1.Container{c(nil, nil)}, []corev1.Container{c(rl("memory", "1Gi"), nil)}, corev1.PodQOSBurstable},
	} {
		if got := ComputeQOS(&corev1.PodSpec{Containers: tc.containers, InitContainers: tc.init}); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
