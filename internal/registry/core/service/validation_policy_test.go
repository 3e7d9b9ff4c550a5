package service

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func TestValidateExternalIPsAndSourceRanges(t *testing.T) {
	extIPs := func(ips ...string) func(*corev1.Service) {
		return func(s *corev1.Service) { s.Spec.ExternalIPs = ips }
	}
	runValidateCases(t, []validateCase{
		{"special external IPs", newSvc(corev1.ServiceTypeNodePort, extIPs("0.0.0.0", "127.0.0.1", "::1", "169.254.1.1", "fe80::1", "224.0.0.1", "ff02::1", "1.2.3")), []string{
			`spec.externalIPs[0]: Invalid value: "0.0.0.0": may not be unspecified (0.0.0.0)`,
			`spec.externalIPs[1]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
			`spec.externalIPs[2]: Invalid value: "::1": may not be in the loopback range (127.0.0.0/8, ::1/128)`,
			`spec.externalIPs[3]: Invalid value: "169.254.1.1": may not be in the link-local range (169.254.0.0/16, fe80::/10)`,
			`spec.externalIPs[4]: Invalid value: "fe80::1": may not be in the link-local range (169.254.0.0/16, fe80::/10)`,
			`spec.externalIPs[5]: Invalid value: "224.0.0.1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)`,
			`spec.externalIPs[6]: Invalid value: "ff02::1": may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)`,
			`spec.externalIPs[7]: Invalid value: "1.2.3": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`,
		}},
		{"ClusterIP with external IPs needs a policy", newSvc(corev1.ServiceTypeClusterIP, extIPs("192.0.2.1")),
			[]string{"spec.externalTrafficPolicy: Required value"}},
		{"source ranges on NodePort", newSvc(corev1.ServiceTypeNodePort, func(s *corev1.Service) {
			s.Spec.LoadBalancerSourceRanges = []string{"10.0.0.0/8", "10.0.0.0", "1.2.3.4/33"}
		}), []string{
			"spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'",
			`spec.LoadBalancerSourceRanges[1]: Invalid value: "10.0.0.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`,
			`spec.LoadBalancerSourceRanges[2]: Invalid value: "1.2.3.4/33": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`,
		}},
		{"source ranges annotation", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) {
			s.Annotations = map[string]string{corev1.AnnotationLoadBalancerSourceRangesKey: "10.0.0.0/8, nope"}
		}), []string{
			"metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: Forbidden: may only be used when `type` is 'LoadBalancer'",
			`metadata.annotations[service.beta.kubernetes.io/load-balancer-source-ranges]: Invalid value: "nope": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`,
		}},
	})
}

func TestValidateTrafficPolicies(t *testing.T) {
	lb := func(muts ...func(*corev1.Service)) *corev1.Service {
		return newSvc(corev1.ServiceTypeLoadBalancer, muts...)
	}
	runValidateCases(t, []validateCase{
		{"NodePort without policy", newSvc(corev1.ServiceTypeNodePort, func(s *corev1.Service) { s.Spec.ExternalTrafficPolicy = "" }),
			[]string{"spec.externalTrafficPolicy: Required value"}},
		{"bad external policy", lb(func(s *corev1.Service) { s.Spec.ExternalTrafficPolicy = "Global" }),
			[]string{`spec.externalTrafficPolicy: Unsupported value: "Global": supported values: "Cluster", "Local"`}},
		{"external policy on ClusterIP", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) { s.Spec.ExternalTrafficPolicy = "Cluster" }),
			[]string{`spec.externalTrafficPolicy: Invalid value: "Cluster": may only be set for externally-accessible services`}},
		{"Local LB without health check port", lb(func(s *corev1.Service) { s.Spec.ExternalTrafficPolicy = "Local" }),
			[]string{"spec.healthCheckNodePort: Required value"}},
		{"health check port out of range", lb(func(s *corev1.Service) {
			s.Spec.ExternalTrafficPolicy, s.Spec.HealthCheckNodePort = "Local", 70000
		}), []string{"spec.healthCheckNodePort: Invalid value: 70000: must be between 1 and 65535, inclusive"}},
		{"health check port with Cluster", lb(func(s *corev1.Service) { s.Spec.HealthCheckNodePort = 30001 }),
			[]string{"spec.healthCheckNodePort: Invalid value: 30001: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"}},
		{"no internal policy", newSvc(corev1.ServiceTypeNodePort, func(s *corev1.Service) { s.Spec.InternalTrafficPolicy = nil }),
			[]string{"spec.internalTrafficPolicy: Required value"}},
		{"bad internal policy", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) {
			s.Spec.InternalTrafficPolicy = ptr(corev1.ServiceInternalTrafficPolicy("Node"))
		}), []string{`spec.internalTrafficPolicy: Unsupported value: "Node": supported values: "Cluster", "Local"`}},
		{"bad traffic distribution", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) { s.Spec.TrafficDistribution = ptr("Anywhere") }),
			[]string{`spec.trafficDistribution: Unsupported value: "Anywhere": supported values: "PreferClose", "PreferSameZone", "PreferSameNode"`}},
		{"LB without allocateLoadBalancerNodePorts", lb(func(s *corev1.Service) { s.Spec.AllocateLoadBalancerNodePorts = nil }),
			[]string{"allocateLoadBalancerNodePorts: Required value"}},
		{"allocateLoadBalancerNodePorts on NodePort", newSvc(corev1.ServiceTypeNodePort, func(s *corev1.Service) { s.Spec.AllocateLoadBalancerNodePorts = ptr(false) }),
			[]string{"spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer'"}},
		{"bad loadBalancerClass", lb(func(s *corev1.Service) { s.Spec.LoadBalancerClass = ptr("-x") }),
			[]string{`spec.loadBalancerClass: Invalid value: "-x": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`}},
		{"loadBalancerClass on ClusterIP", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) { s.Spec.LoadBalancerClass = ptr("x") }),
			[]string{"spec.loadBalancerClass: Forbidden: may only be used when `type` is 'LoadBalancer'"}},
	})
}
