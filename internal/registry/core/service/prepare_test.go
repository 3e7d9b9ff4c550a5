package service

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestNormalizeClusterIPs(t *testing.T) {
	cases := []struct {
		name         string
		old          *corev1.Service
		ip           string
		ips, wantIPs []string
	}{
		{"create, singular only", nil, "10.0.0.1", nil, []string{"10.0.0.1"}},
		{"create, headless", nil, "None", nil, []string{"None"}},
		{"create, both", nil, "10.0.0.1", []string{"10.0.0.2"}, []string{"10.0.0.2"}},
		{"create, none", nil, "", nil, nil},
		{"update, plural dropped", newSvc(corev1.ServiceTypeClusterIP), "10.0.0.10", nil, []string{"10.0.0.10"}},
		{"update, singular cleared", newSvc(corev1.ServiceTypeClusterIP), "", []string{"10.0.0.10"}, nil},
		{"update, singular changed", newSvc(corev1.ServiceTypeClusterIP), "10.0.0.11", []string{"10.0.0.10"}, []string{"10.0.0.11"}},
		{"update, both changed", newSvc(corev1.ServiceTypeClusterIP), "10.0.0.11", []string{"10.0.0.12"}, []string{"10.0.0.12"}},
	}
	for _, c := range cases {
		svc := newSvc(corev1.ServiceTypeClusterIP, ips(c.ip, c.ips...))
		if c.ips == nil {
			svc.Spec.ClusterIPs = nil
		}
		NormalizeClusterIPs(svc, c.old)
		if !reflect.DeepEqual(svc.Spec.ClusterIPs, c.wantIPs) {
			t.Errorf("%s: clusterIPs %q, want %q", c.name, svc.Spec.ClusterIPs, c.wantIPs)
		}
	}
}

func TestPatchAllocatedValues(t *testing.T) {
	old := newSvc(corev1.ServiceTypeLoadBalancer, func(s *corev1.Service) {
		s.Spec.Ports = []corev1.ServicePort{
			{Name: "a", Port: 1, Protocol: "TCP", TargetPort: intstr.FromInt32(1), NodePort: 30001},
			{Name: "b", Port: 2, Protocol: "TCP", TargetPort: intstr.FromInt32(2), NodePort: 30002}}
		s.Spec.ExternalTrafficPolicy, s.Spec.HealthCheckNodePort = corev1.ServiceExternalTrafficPolicyLocal, 31000
	})
	// Re-applied YAML: nothing allocated, and port b now takes a's node port.
	svc := newSvc(corev1.ServiceTypeLoadBalancer, ips(""), func(s *corev1.Service) {
		s.Spec.ClusterIPs = nil
		s.Spec.Ports = []corev1.ServicePort{
			{Name: "a", Port: 1, Protocol: "TCP", TargetPort: intstr.FromInt32(1)},
			{Name: "b", Port: 2, Protocol: "TCP", TargetPort: intstr.FromInt32(2), NodePort: 30001},
			{Name: "c", Port: 3, Protocol: "TCP", TargetPort: intstr.FromInt32(3)}}
		s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	})
	PatchAllocatedValues(svc, old)
	s := svc.Spec
	if s.ClusterIP != "10.0.0.10" || !reflect.DeepEqual(s.ClusterIPs, []string{"10.0.0.10"}) ||
		s.Ports[0].NodePort != 0 || s.Ports[1].NodePort != 30001 || s.Ports[2].NodePort != 0 || s.HealthCheckNodePort != 31000 {
		t.Fatalf("patched: %+v", s)
	}
	// To ExternalName nothing is patched.
	en := newSvc(corev1.ServiceTypeExternalName)
	PatchAllocatedValues(en, old)
	if en.Spec.ClusterIP != "" || en.Spec.Ports[0].NodePort != 0 {
		t.Fatalf("ExternalName patched: %+v", en.Spec)
	}
}

func TestPrepareForUpdateDropsTypeDependentFields(t *testing.T) {
	old := newSvc(corev1.ServiceTypeLoadBalancer, func(s *corev1.Service) {
		s.Spec.ExternalTrafficPolicy, s.Spec.HealthCheckNodePort = corev1.ServiceExternalTrafficPolicyLocal, 31000
		s.Spec.LoadBalancerClass = ptr("a.io/x")
		s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "1.2.3.4"}}
	})
	// The user only changed the type.
	toExt := old.DeepCopy()
	toExt.Spec.Type, toExt.Spec.ExternalName = corev1.ServiceTypeExternalName, "db.example.com"
	PrepareForUpdate(toExt, old)
	s := toExt.Spec
	if s.ClusterIP != "" || s.ClusterIPs != nil || s.IPFamilies != nil || s.IPFamilyPolicy != nil ||
		s.Ports[0].NodePort != 0 || s.HealthCheckNodePort != 0 || s.AllocateLoadBalancerNodePorts != nil ||
		s.LoadBalancerClass != nil || s.ExternalTrafficPolicy != "" || len(toExt.Status.LoadBalancer.Ingress) != 0 {
		t.Fatalf("LoadBalancer → ExternalName kept: %+v", s)
	}
	// InternalTrafficPolicy stays (upstream does not drop it); the result
	// must validate as an update.
	toExt.Spec.InternalTrafficPolicy = nil
	expectErrors(t, "LoadBalancer → ExternalName", ValidateUpdate(toExt, old), nil)

	// Fields the user changed at the same time are kept (and judged).
	toCIP := old.DeepCopy()
	toCIP.Spec.Type = corev1.ServiceTypeClusterIP
	toCIP.Spec.Ports[0].NodePort = 30999
	toCIP.Spec.LoadBalancerClass = ptr("b.io/y")
	PrepareForUpdate(toCIP, old)
	if toCIP.Spec.ClusterIP != "10.0.0.10" || toCIP.Spec.Ports[0].NodePort != 30999 || *toCIP.Spec.LoadBalancerClass != "b.io/y" {
		t.Fatalf("LoadBalancer → ClusterIP: %+v", toCIP.Spec)
	}
	// Upstream checks loadBalancerClass twice on update (the message is
	// shown once: the aggregate drops repeats).
	expectErrors(t, "LoadBalancer → ClusterIP with changes", ValidateUpdate(toCIP, old), []string{
		"spec.loadBalancerClass: Forbidden: may only be used when `type` is 'LoadBalancer'",
		"spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
		"spec.loadBalancerClass: Forbidden: may only be used when `type` is 'LoadBalancer'",
	})
}

// TestCreateFlow: clients that send only spec.clusterIP rely on
// NormalizeClusterIPs running before Validate.
func TestCreateFlow(t *testing.T) {
	create := func(svc *corev1.Service) []string {
		Default(svc)
		NormalizeClusterIPs(svc, nil)
		return errStrings(Validate(svc))
	}
	headless := &corev1.Service{Spec: corev1.ServiceSpec{ClusterIP: "None"}}
	if errs := create(headless); len(errs) != 0 || !reflect.DeepEqual(headless.Spec.ClusterIPs, []string{"None"}) {
		t.Errorf("headless without ports: %q, clusterIPs %q", errs, headless.Spec.ClusterIPs)
	}
	extName := &corev1.Service{Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName,
		ExternalName: "db.example.com", ClusterIP: "10.0.0.1"}}
	want := []string{"spec.clusterIPs: Forbidden: may not be set for ExternalName services"}
	if got := create(extName); !reflect.DeepEqual(got, want) {
		t.Errorf("ExternalName with clusterIP: %q, want %q", got, want)
	}
}
