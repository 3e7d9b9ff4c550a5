package service

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestValidateValid(t *testing.T) {
	valid := map[string]*corev1.Service{
		"ClusterIP":    newSvc(corev1.ServiceTypeClusterIP),
		"NodePort":     newSvc(corev1.ServiceTypeNodePort),
		"LoadBalancer": newSvc(corev1.ServiceTypeLoadBalancer),
		"ExternalName": newSvc(corev1.ServiceTypeExternalName),
		"ExternalName without ports, trailing dot": newSvc(corev1.ServiceTypeExternalName, func(s *corev1.Service) {
			s.Spec.Ports, s.Spec.ExternalName = nil, "db.example.com."
		}),
		"headless without ports": newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) {
			s.Spec.ClusterIP, s.Spec.ClusterIPs, s.Spec.Ports = "None", []string{"None"}, nil
			s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
			s.Spec.IPFamilyPolicy = ptr(corev1.IPFamilyPolicyRequireDualStack)
		}),
		"not yet allocated": newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) {
			s.Spec.ClusterIP, s.Spec.ClusterIPs, s.Spec.IPFamilies, s.Spec.IPFamilyPolicy = "", nil, nil, nil
		}),
		"dual-stack": newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) {
			s.Spec.ClusterIPs = []string{"10.0.0.10", "fd00::10"}
			s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol}
			s.Spec.IPFamilyPolicy = ptr(corev1.IPFamilyPolicyPreferDualStack)
		}),
		"everything": newSvc(corev1.ServiceTypeLoadBalancer, func(s *corev1.Service) {
			s.Spec.Ports = append(s.Spec.Ports,
				corev1.ServicePort{Name: "dns", Port: 53, Protocol: "UDP", TargetPort: intstr.FromInt32(5353), NodePort: 30053, AppProtocol: ptr("kubernetes.io/h2c")},
				corev1.ServicePort{Name: "dns-tcp", Port: 53, Protocol: "TCP", TargetPort: intstr.FromInt32(5353), NodePort: 30053},
				corev1.ServicePort{Name: "sctp", Port: 9, Protocol: "SCTP", TargetPort: intstr.FromInt32(9), NodePort: 30009})
			s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
			s.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr(int32(86400))}}
			s.Spec.ExternalIPs = []string{"192.0.2.1", "2001:db8::1"}
			s.Spec.LoadBalancerSourceRanges = []string{" 10.0.0.0/8 ", "2001:db8::/32"}
			s.Spec.LoadBalancerClass = ptr("example.com/lb")
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
			s.Spec.HealthCheckNodePort = 32000
			s.Spec.InternalTrafficPolicy = ptr(corev1.ServiceInternalTrafficPolicyLocal)
			s.Spec.TrafficDistribution = ptr(corev1.ServiceTrafficDistributionPreferSameNode)
			s.Annotations = map[string]string{corev1.AnnotationTopologyMode: "Auto", corev1.DeprecatedAnnotationTopologyAwareHints: "Auto"}
		}),
		"source ranges annotation": newSvc(corev1.ServiceTypeLoadBalancer, func(s *corev1.Service) {
			s.Annotations = map[string]string{corev1.AnnotationLoadBalancerSourceRangesKey: " 10.0.0.0/8, 192.168.0.0/16 "}
		}),
	}
	for name, svc := range valid {
		expectErrors(t, name, Validate(svc), nil)
	}
}

type validateCase struct {
	name string
	svc  *corev1.Service
	want []string
}

func runValidateCases(t *testing.T, cases []validateCase) {
	t.Helper()
	for _, c := range cases {
		expectErrors(t, c.name, Validate(c.svc), c.want)
	}
}

func TestValidateTypes(t *testing.T) {
	runValidateCases(t, []validateCase{
		// StrictIPCIDRValidation is on in 1.36: new sloppy IPs are refused.
		{"sloppy legacy IPs", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) {
			s.Spec.ClusterIP, s.Spec.ClusterIPs = "010.000.000.010", []string{"010.000.000.010"}
			s.Spec.ExternalIPs = []string{"::ffff:1.2.3.4"}
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
		}), []string{
			`spec.clusterIPs[0]: Invalid value: "010.000.000.010": must not have leading 0s`,
			`spec.externalIPs[0]: Invalid value: "::ffff:1.2.3.4": must not be an IPv4-mapped IPv6 address`,
		}},
		{"no type", newSvc("", func(s *corev1.Service) {
			s.Spec.Type, s.Spec.InternalTrafficPolicy = "", nil
		}), []string{"spec.type: Required value"}},
		{"bad type", newSvc("Weird"), []string{`spec.type: Unsupported value: "Weird": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`}},
		{"no ports", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) { s.Spec.Ports = nil }),
			[]string{"spec.ports: Required value"}},
		{"headless NodePort", newSvc(corev1.ServiceTypeNodePort, func(s *corev1.Service) {
			s.Spec.ClusterIP, s.Spec.ClusterIPs = "None", []string{"None"}
		}), []string{`spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for NodePort services`}},
		{"headless LoadBalancer", newSvc(corev1.ServiceTypeLoadBalancer, func(s *corev1.Service) {
			s.Spec.ClusterIP, s.Spec.ClusterIPs = "None", []string{"None"}
		}), []string{`spec.clusterIPs[0]: Invalid value: "None": may not be set to 'None' for LoadBalancer services`}},
		{"ExternalName without name", newSvc(corev1.ServiceTypeExternalName, func(s *corev1.Service) { s.Spec.ExternalName = "." }),
			[]string{"spec.externalName: Required value"}},
		{"ExternalName bad name", newSvc(corev1.ServiceTypeExternalName, func(s *corev1.Service) { s.Spec.ExternalName = "Bad_Name" }),
			[]string{`spec.externalName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"ExternalName with IP fields", newSvc(corev1.ServiceTypeExternalName, func(s *corev1.Service) {
			s.Spec.ClusterIP, s.Spec.ClusterIPs = "10.0.0.1", []string{"10.0.0.1"}
			s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
			s.Spec.IPFamilyPolicy = ptr(corev1.IPFamilyPolicySingleStack)
		}), []string{
			"spec.clusterIPs: Forbidden: may not be set for ExternalName services",
			"spec.ipFamilies: Forbidden: may not be set for ExternalName services",
			"spec.ipFamilyPolicy: Forbidden: may not be set for ExternalName services",
		}},
		{"ExternalName with nodePort and policies", newSvc(corev1.ServiceTypeExternalName, func(s *corev1.Service) {
			s.Spec.Ports[0].NodePort = 30000
			s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
			s.Spec.HealthCheckNodePort = 30001
			s.Spec.AllocateLoadBalancerNodePorts = ptr(true)
			s.Spec.LoadBalancerClass = ptr("x")
		}), []string{
			"spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer'",
			"spec.loadBalancerClass: Forbidden: may only be used when `type` is 'LoadBalancer'",
			`spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services`,
			"spec.healthCheckNodePort: Invalid value: 30001: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
		}},
	})
}

func TestValidatePorts(t *testing.T) {
	two := func(a, b corev1.ServicePort) func(*corev1.Service) {
		return func(s *corev1.Service) { s.Spec.Ports = []corev1.ServicePort{a, b} }
	}
	tcp := func(name string, port int32) corev1.ServicePort {
		return corev1.ServicePort{Name: name, Port: port, Protocol: "TCP", TargetPort: intstr.FromInt32(port)}
	}
	runValidateCases(t, []validateCase{
		{"second name missing", newSvc(corev1.ServiceTypeClusterIP, two(tcp("a", 1), tcp("", 2))),
			[]string{"spec.ports[1].name: Required value"}},
		{"duplicate name", newSvc(corev1.ServiceTypeClusterIP, two(tcp("a", 1), tcp("a", 2))),
			[]string{`spec.ports[1].name: Duplicate value: "a"`}},
		{"duplicate port", newSvc(corev1.ServiceTypeClusterIP, two(tcp("a", 1), tcp("b", 1))),
			[]string{`spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":1,"TargetPort":0,"NodePort":0}`}},
		{"bad name", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) { s.Spec.Ports[0].Name = "HTTP" }),
			[]string{`spec.ports[0].name: Invalid value: "HTTP": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}},
		{"port 0, target 0", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) {
			s.Spec.Ports[0].Port, s.Spec.Ports[0].TargetPort = 0, intstr.FromInt32(0)
		}), []string{
			"spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
			"spec.ports[0].targetPort: Invalid value: 0: must be between 1 and 65535, inclusive",
		}},
		{"bad protocol", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) { s.Spec.Ports[0].Protocol = "ICMP" }),
			[]string{`spec.ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"`}},
		{"no protocol", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) { s.Spec.Ports[0].Protocol = "" }),
			[]string{"spec.ports[0].protocol: Required value"}},
		{"bad target port name", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) {
			s.Spec.Ports[0].TargetPort = intstr.FromString("very-long-port-name")
		}), []string{`spec.ports[0].targetPort: Invalid value: "very-long-port-name": must be no more than 15 characters`}},
		{"target port out of range", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) {
			s.Spec.Ports[0].TargetPort = intstr.FromInt32(70000)
		}), []string{"spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive"}},
		{"bad appProtocol", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) { s.Spec.Ports[0].AppProtocol = ptr("a/b/c") }),
			[]string{`spec.ports[0].appProtocol: Invalid value: "a/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`}},
		{"nodePort on ClusterIP", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) { s.Spec.Ports[0].NodePort = 30000 }),
			[]string{"spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"}},
		{"duplicate nodePort", newSvc(corev1.ServiceTypeNodePort, two(
			corev1.ServicePort{Name: "a", Port: 1, Protocol: "TCP", TargetPort: intstr.FromInt32(1), NodePort: 30000},
			corev1.ServicePort{Name: "b", Port: 2, Protocol: "TCP", TargetPort: intstr.FromInt32(2), NodePort: 30000})),
			[]string{"spec.ports[1].nodePort: Duplicate value: 30000"}},
	})
}

func TestValidateAffinityAndSelector(t *testing.T) {
	clientIP := func(cfg *corev1.SessionAffinityConfig) func(*corev1.Service) {
		return func(s *corev1.Service) {
			s.Spec.SessionAffinity, s.Spec.SessionAffinityConfig = corev1.ServiceAffinityClientIP, cfg
		}
	}
	timeout := func(t int32) *corev1.SessionAffinityConfig {
		return &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: &t}}
	}
	runValidateCases(t, []validateCase{
		{"timeout 0", newSvc(corev1.ServiceTypeClusterIP, clientIP(timeout(0))),
			[]string{"spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than 86400"}},
		{"timeout too long", newSvc(corev1.ServiceTypeClusterIP, clientIP(timeout(86401))),
			[]string{"spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 86401: must be greater than 0 and less than 86400"}},
		{"no config", newSvc(corev1.ServiceTypeClusterIP, clientIP(nil)),
			[]string{"spec.sessionAffinityConfig: Required value: when session affinity type is ClientIP"}},
		{"no clientIP", newSvc(corev1.ServiceTypeClusterIP, clientIP(&corev1.SessionAffinityConfig{})),
			[]string{"spec.sessionAffinityConfig.clientIP: Required value: when session affinity type is ClientIP"}},
		{"no timeout", newSvc(corev1.ServiceTypeClusterIP, clientIP(&corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{}})),
			[]string{"spec.sessionAffinityConfig.clientIP.timeoutSeconds: Required value: when session affinity type is ClientIP"}},
		{"config with None", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) { s.Spec.SessionAffinityConfig = timeout(5) }),
			[]string{"spec.sessionAffinityConfig: Forbidden: must not be set when session affinity is None"}},
		{"no affinity", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) { s.Spec.SessionAffinity = "" }),
			[]string{"spec.sessionAffinity: Required value"}},
		{"bad affinity", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) { s.Spec.SessionAffinity = "Cookie" }),
			[]string{`spec.sessionAffinity: Unsupported value: "Cookie": supported values: "ClientIP", "None"`}},
		{"bad selector value", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) { s.Spec.Selector = map[string]string{"app": "a b"} }),
			[]string{`spec.selector: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`}},
		{"topology annotations disagree", newSvc(corev1.ServiceTypeClusterIP, func(s *corev1.Service) {
			s.Annotations = map[string]string{corev1.AnnotationTopologyMode: "Auto", corev1.DeprecatedAnnotationTopologyAwareHints: "Disabled"}
		}), []string{`metadata.annotations[service.kubernetes.io/topology-mode]: Invalid value: "Auto": must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified`}},
	})
}
