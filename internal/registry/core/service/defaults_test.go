package service

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestDefaultNodePort(t *testing.T) {
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort,
		SessionAffinity: corev1.ServiceAffinityClientIP,
		Ports:           []corev1.ServicePort{{Port: 80}, {Port: 81, TargetPort: intstr.FromString("")}}}}
	Default(svc)
	s := svc.Spec
	if s.Ports[0].Protocol != corev1.ProtocolTCP || s.Ports[0].TargetPort != intstr.FromInt32(80) ||
		s.Ports[1].TargetPort != intstr.FromInt32(81) ||
		s.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyCluster ||
		*s.InternalTrafficPolicy != corev1.ServiceInternalTrafficPolicyCluster ||
		*s.SessionAffinityConfig.ClientIP.TimeoutSeconds != 10800 || s.AllocateLoadBalancerNodePorts != nil {
		t.Fatalf("defaults: %+v", s)
	}
}

func TestDefaultEmpty(t *testing.T) {
	svc := &corev1.Service{}
	Default(svc)
	s := svc.Spec
	if s.Type != corev1.ServiceTypeClusterIP || s.SessionAffinity != corev1.ServiceAffinityNone ||
		s.ExternalTrafficPolicy != "" || s.InternalTrafficPolicy == nil || s.IPFamilyPolicy != nil {
		t.Fatalf("defaults: %+v", s)
	}
}

func TestDefaultClusterIPWithExternalIPs(t *testing.T) {
	svc := &corev1.Service{Spec: corev1.ServiceSpec{ExternalIPs: []string{"1.2.3.4"}}}
	Default(svc)
	if svc.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyCluster {
		t.Fatalf("externally-accessible ClusterIP Service: externalTrafficPolicy %q", svc.Spec.ExternalTrafficPolicy)
	}
}

func TestDefaultExternalName(t *testing.T) {
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName,
		SessionAffinity:       corev1.ServiceAffinityNone,
		SessionAffinityConfig: &corev1.SessionAffinityConfig{}}}
	Default(svc)
	if svc.Spec.InternalTrafficPolicy != nil || svc.Spec.ExternalTrafficPolicy != "" || svc.Spec.SessionAffinityConfig != nil {
		t.Fatalf("ExternalName defaults: %+v", svc.Spec)
	}
}

func TestDefaultLoadBalancer(t *testing.T) {
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer,
		SessionAffinity:       corev1.ServiceAffinityClientIP,
		SessionAffinityConfig: &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr(int32(60))}}},
		Status: corev1.ServiceStatus{LoadBalancer: corev1.LoadBalancerStatus{Ingress: []corev1.LoadBalancerIngress{
			{IP: "1.2.3.4"}, {Hostname: "lb.example.com"}, {IP: "1.2.3.5", IPMode: ptr(corev1.LoadBalancerIPModeProxy)}}}}}
	Default(svc)
	ing := svc.Status.LoadBalancer.Ingress
	if !*svc.Spec.AllocateLoadBalancerNodePorts || *svc.Spec.SessionAffinityConfig.ClientIP.TimeoutSeconds != 60 ||
		*ing[0].IPMode != corev1.LoadBalancerIPModeVIP || ing[1].IPMode != nil || *ing[2].IPMode != corev1.LoadBalancerIPModeProxy {
		t.Fatalf("LoadBalancer defaults: %+v %+v", svc.Spec, ing)
	}
}
