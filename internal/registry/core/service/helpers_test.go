package service

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func ptr[T any](v T) *T { return &v }

// newSvc returns a valid, defaulted, allocated Service of type t, changed by
// the mutators.
func newSvc(t corev1.ServiceType, muts ...func(*corev1.Service)) *corev1.Service {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.ServiceSpec{
			Type:     t,
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}},
		},
	}
	if t != corev1.ServiceTypeExternalName {
		svc.Spec.ClusterIP = "10.0.0.10"
		svc.Spec.ClusterIPs = []string{"10.0.0.10"}
		svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
		svc.Spec.IPFamilyPolicy = ptr(corev1.IPFamilyPolicySingleStack)
	} else {
		svc.Spec.ExternalName = "db.example.com"
	}
	if t == corev1.ServiceTypeNodePort || t == corev1.ServiceTypeLoadBalancer {
		svc.Spec.Ports[0].NodePort = 30080
	}
	Default(svc)
	for _, m := range muts {
		m(svc)
	}
	return svc
}

// errStrings renders errors as the API shows them.
func errStrings(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

// expectErrors fails unless errs are exactly want, in order.
func expectErrors(t *testing.T, name string, errs field.ErrorList, want []string) {
	t.Helper()
	got := errStrings(errs)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got: %q\nwant: %q", name, got, want)
	}
}
