package service

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestValidateUpdateLoadBalancer(t *testing.T) {
	lb := func(muts ...func(*corev1.Service)) *corev1.Service {
		return newSvc(corev1.ServiceTypeLoadBalancer, muts...)
	}
	class := func(c *string) func(*corev1.Service) {
		return func(s *corev1.Service) { s.Spec.LoadBalancerClass = c }
	}
	local := func(port int32) func(*corev1.Service) {
		return func(s *corev1.Service) {
			s.Spec.ExternalTrafficPolicy, s.Spec.HealthCheckNodePort = corev1.ServiceExternalTrafficPolicyLocal, port
		}
	}
	runUpdateCases(t, []updateCase{
		{"set class on LB", lb(), lb(class(ptr("a.io/x"))),
			[]string{`spec.loadBalancerClass: Invalid value: "a.io/x": may not change once set`}},
		{"unset class on LB", lb(class(ptr("a.io/x"))), lb(),
			[]string{`spec.loadBalancerClass: Invalid value: null: may not change once set`}},
		{"class when becoming LB", newSvc(corev1.ServiceTypeClusterIP), lb(class(ptr("a.io/x"))), nil},
		{"class dropped with type", lb(class(ptr("a.io/x"))), newSvc(corev1.ServiceTypeClusterIP), nil},
		{"health check port changed", lb(local(31000)), lb(local(31001)),
			[]string{"spec.healthCheckNodePort: Forbidden: field is immutable"}},
		{"health check port kept", lb(local(31000)), lb(local(31000)), nil},
		{"becomes Local", lb(), lb(local(31001)), nil},
	})
}

func TestValidateStatusUpdate(t *testing.T) {
	ingress := func(t corev1.ServiceType, ing ...corev1.LoadBalancerIngress) *corev1.Service {
		return newSvc(t, func(s *corev1.Service) { s.Status.LoadBalancer.Ingress = ing })
	}
	vip := ptr(corev1.LoadBalancerIPModeVIP)
	cases := []updateCase{
		{"valid", nil, ingress(corev1.ServiceTypeLoadBalancer,
			corev1.LoadBalancerIngress{IP: "1.2.3.4", IPMode: vip},
			corev1.LoadBalancerIngress{IP: "2001:db8::1", IPMode: ptr(corev1.LoadBalancerIPModeProxy), Hostname: "lb.example.com"},
			corev1.LoadBalancerIngress{Hostname: "lb2.example.com"}), nil},
		{"not a LoadBalancer", nil, ingress(corev1.ServiceTypeNodePort, corev1.LoadBalancerIngress{IP: "1.2.3.4", IPMode: vip}),
			[]string{"status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'"}},
		{"bad entries", nil, ingress(corev1.ServiceTypeLoadBalancer,
			corev1.LoadBalancerIngress{IP: "1.2.3.400", IPMode: vip},
			corev1.LoadBalancerIngress{IP: "1.2.3.4"},
			corev1.LoadBalancerIngress{Hostname: "lb.example.com", IPMode: vip},
			corev1.LoadBalancerIngress{IP: "1.2.3.4", IPMode: ptr(corev1.LoadBalancerIPMode("Direct"))},
			corev1.LoadBalancerIngress{Hostname: "1.2.3.4"},
			corev1.LoadBalancerIngress{Hostname: "LB_1"}), []string{
			`status.loadBalancer.ingress[0].ip: Invalid value: "1.2.3.400": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
			"status.loadBalancer.ingress[1].ipMode: Required value: must be specified when `ip` is set",
			"status.loadBalancer.ingress[2].ipMode: Forbidden: may not be specified when `ip` is not set",
			`status.loadBalancer.ingress[3].ipMode: Unsupported value: "Direct": supported values: "Proxy", "VIP"`,
			`status.loadBalancer.ingress[4].hostname: Invalid value: "1.2.3.4": must be a DNS name, not an IP address`,
			`status.loadBalancer.ingress[5].hostname: Invalid value: "LB_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
		}},
	}
	for _, c := range cases {
		old := newSvc(c.svc.Spec.Type)
		expectErrors(t, c.name, ValidateStatusUpdate(c.svc, old), c.want)
	}
}

// TestNoPanics: validation must cope with empty and half-filled objects.
func TestNoPanics(t *testing.T) {
	empty := &corev1.Service{}
	weird := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, ClusterIP: "None",
		ClusterIPs: []string{"None"}, SessionAffinity: corev1.ServiceAffinityClientIP,
		SessionAffinityConfig: &corev1.SessionAffinityConfig{}, IPFamilies: []corev1.IPFamily{""}}}
	for _, pair := range [][2]*corev1.Service{{empty, empty}, {weird, empty}, {empty, weird}, {weird, weird}} {
		Validate(pair[0])
		ValidateUpdate(pair[0], pair[1])
		ValidateStatusUpdate(pair[0], pair[1])
		NormalizeClusterIPs(pair[0].DeepCopy(), pair[1])
		NormalizeClusterIPs(pair[0].DeepCopy(), nil)
		PatchAllocatedValues(pair[0].DeepCopy(), pair[1])
		PrepareForUpdate(pair[0].DeepCopy(), pair[1])
		Default(pair[0].DeepCopy())
	}
	expectErrors(t, "empty", Validate(empty), []string{
		"spec.ports: Required value", "spec.sessionAffinity: Required value", "spec.type: Required value"})
}
