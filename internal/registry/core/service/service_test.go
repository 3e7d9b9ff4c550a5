package service

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestDefault(t *testing.T) {
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort,
		SessionAffinity: corev1.ServiceAffinityClientIP, Ports: []corev1.ServicePort{{Port: 80}}}}
	Default(svc)
	s := svc.Spec
	if s.Ports[0].Protocol != corev1.ProtocolTCP || s.Ports[0].TargetPort != intstr.FromInt32(80) ||
		s.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyCluster ||
		*s.InternalTrafficPolicy != corev1.ServiceInternalTrafficPolicyCluster ||
		*s.SessionAffinityConfig.ClientIP.TimeoutSeconds != 10800 {
		t.Fatalf("defaults: %+v", s)
	}
}

func TestValidate(t *testing.T) {
	cases := map[string]struct {
		spec corev1.ServiceSpec
		want string
	}{
		"no ports": {corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP}, "spec.ports: Required value"},
		"bad type": {corev1.ServiceSpec{Type: "Weird", Ports: []corev1.ServicePort{{Port: 1, Protocol: "TCP"}}},
			`spec.type: Unsupported value: "Weird"`},
		"bad protocol": {corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: []corev1.ServicePort{{Port: 1, Protocol: "ICMP"}}},
			`spec.ports[0].protocol: Unsupported value: "ICMP"`},
		"affinity timeout": {corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: []corev1.ServicePort{{Port: 1, Protocol: "TCP"}},
			SessionAffinity: corev1.ServiceAffinityClientIP, SessionAffinityConfig: &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr(int32(86401))}}},
			"spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 86401: must be greater than 0 and less than 86400"},
		"nodePort on ClusterIP": {corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: []corev1.ServicePort{{Port: 1, Protocol: "TCP", NodePort: 30000}}},
			"spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"},
		"healthCheckNodePort without Local": {corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 1, Protocol: "TCP"}}, HealthCheckNodePort: 30001},
			"spec.healthCheckNodePort: Invalid value: 30001"},
		"duplicate port": {corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: []corev1.ServicePort{{Name: "a", Port: 1, Protocol: "TCP"}, {Name: "b", Port: 1, Protocol: "TCP"}}},
			"spec.ports[1]: Duplicate value"},
	}
	for name, c := range cases {
		errs := Validate(&corev1.Service{Spec: c.spec})
		if !strings.Contains(errs.ToAggregate().Error(), c.want) {
			t.Errorf("%s: errors %v do not contain %q", name, errs, c.want)
		}
	}
	ok := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, Ports: []corev1.ServicePort{{Port: 80, Protocol: "TCP"}}}}
	if errs := Validate(ok); len(errs) != 0 {
		t.Fatalf("valid service: %v", errs)
	}
}

func ptr[T any](v T) *T { return &v }
