package service

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Default fills in upstream's SetDefaults_Service (pkg/apis/core/v1). It
// runs on every decoded body, so it must cope with any input. The IP family
// fields are not defaulted here: that needs the cluster's service CIDRs and
// happens at allocation time.
func Default(svc *corev1.Service) {
	s := &svc.Spec
	defaultSessionAffinity(s)
	if s.Type == "" {
		s.Type = corev1.ServiceTypeClusterIP
	}
	for i := range s.Ports {
		p := &s.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if p.TargetPort == intstr.FromInt32(0) || p.TargetPort == intstr.FromString("") {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
	if externallyAccessible(svc) && s.ExternalTrafficPolicy == "" {
		s.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
	if s.InternalTrafficPolicy == nil && usesInternalTrafficPolicy(s.Type) {
		p := corev1.ServiceInternalTrafficPolicyCluster
		s.InternalTrafficPolicy = &p
	}
	if s.Type == corev1.ServiceTypeLoadBalancer {
		if s.AllocateLoadBalancerNodePorts == nil {
			t := true
			s.AllocateLoadBalancerNodePorts = &t
		}
		// LoadBalancerIPMode is GA: an ingress IP without a mode is a VIP.
		for i := range svc.Status.LoadBalancer.Ingress {
			ing := &svc.Status.LoadBalancer.Ingress[i]
			if ing.IP != "" && ing.IPMode == nil {
				m := corev1.LoadBalancerIPModeVIP
				ing.IPMode = &m
			}
		}
	}
}

func defaultSessionAffinity(s *corev1.ServiceSpec) {
	if s.SessionAffinity == "" {
		s.SessionAffinity = corev1.ServiceAffinityNone
	}
	switch s.SessionAffinity {
	case corev1.ServiceAffinityNone:
		s.SessionAffinityConfig = nil
	case corev1.ServiceAffinityClientIP:
		c := s.SessionAffinityConfig
		if c == nil || c.ClientIP == nil || c.ClientIP.TimeoutSeconds == nil {
			t := corev1.DefaultClientIPServiceAffinitySeconds
			s.SessionAffinityConfig = &corev1.SessionAffinityConfig{
				ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: &t}}
		}
	}
}

// usesInternalTrafficPolicy: the types upstream defaults (and requires)
// internalTrafficPolicy for.
func usesInternalTrafficPolicy(t corev1.ServiceType) bool {
	return t == corev1.ServiceTypeClusterIP || t == corev1.ServiceTypeNodePort ||
		t == corev1.ServiceTypeLoadBalancer
}

// externallyAccessible is upstream's apiservice.ExternallyAccessible:
// NodePort and LoadBalancer Services, and ClusterIP ones with external IPs.
func externallyAccessible(svc *corev1.Service) bool {
	switch svc.Spec.Type {
	case corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeNodePort:
		return true
	case corev1.ServiceTypeClusterIP:
		return len(svc.Spec.ExternalIPs) > 0
	}
	return false
}

// needsHealthCheck is upstream's apiservice.NeedsHealthCheck.
func needsHealthCheck(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeLoadBalancer &&
		svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
}
