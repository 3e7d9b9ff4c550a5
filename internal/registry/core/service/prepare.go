package service

import (
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// Upstream rewrites a Service in two places before validating it. The REST
// storage's beginCreate/beginUpdate run NormalizeClusterIPs (and, on update,
// PatchAllocatedValues first) before allocating; the strategy's
// PrepareForUpdate then drops fields the new type no longer uses. Status is
// reset/kept by the resource framework already.

// NormalizeClusterIPs keeps spec.clusterIP and spec.clusterIPs in step for
// clients that only know the singular field (upstream's
// normalizeClusterIPs); old is nil on create. Validation judges the result.
func NormalizeClusterIPs(svc, old *corev1.Service) {
	s := &svc.Spec
	if old == nil {
		if s.ClusterIP != "" && len(s.ClusterIPs) == 0 {
			s.ClusterIPs = []string{s.ClusterIP}
		}
		return
	}
	// An old client patched something else and dropped clusterIPs.
	if len(old.Spec.ClusterIPs) > 0 && len(s.ClusterIPs) == 0 && old.Spec.ClusterIP == s.ClusterIP {
		s.ClusterIPs = old.Spec.ClusterIPs
	}
	// The singular changed while the plural stayed: follow the singular.
	if old.Spec.ClusterIP == s.ClusterIP || !slices.Equal(old.Spec.ClusterIPs, s.ClusterIPs) {
		return
	}
	if old.Spec.ClusterIP != "" && s.ClusterIP == "" {
		s.ClusterIPs = nil // cleared the singular only: clear both
	} else {
		s.ClusterIPs = []string{s.ClusterIP} // changed the singular only
	}
}

// PatchAllocatedValues copies values the server allocated (clusterIP(s),
// nodePorts matched by port name, healthCheckNodePort) from old into an
// update that omits them, so re-applying the original YAML keeps them
// (upstream's patchAllocatedValues). It must run before NormalizeClusterIPs.
func PatchAllocatedValues(svc, old *corev1.Service) {
	s := &svc.Spec
	if needsClusterIP(old) && needsClusterIP(svc) {
		if s.ClusterIP == "" {
			s.ClusterIP = old.Spec.ClusterIP
		}
		if len(s.ClusterIPs) == 0 && len(old.Spec.ClusterIPs) > 0 {
			s.ClusterIPs = old.Spec.ClusterIPs
		}
	}
	if needsNodePort(old) && needsNodePort(svc) {
		// Values the new object already uses cannot be patched in again.
		used := nodePortSet(old).Intersection(nodePortSet(svc))
		byName := map[string]int32{}
		for _, p := range old.Spec.Ports {
			byName[p.Name] = p.NodePort
		}
		for i := range s.Ports {
			if p := &s.Ports[i]; p.NodePort == 0 && !used.Has(byName[p.Name]) {
				p.NodePort = byName[p.Name]
			}
		}
	}
	if needsHealthCheck(old) && needsHealthCheck(svc) && s.HealthCheckNodePort == 0 {
		s.HealthCheckNodePort = old.Spec.HealthCheckNodePort
	}
}

// PrepareForUpdate is upstream's dropTypeDependentFields: when the type
// changes so that a field no longer applies, and the user left that field
// as it was, it is cleared (allocated values are then released). The
// load-balancer status goes away when the Service stops being one.
func PrepareForUpdate(svc, old *corev1.Service) {
	s := &svc.Spec
	if needsClusterIP(old) && !needsClusterIP(svc) {
		if sameClusterIPs(old, svc) {
			s.ClusterIP, s.ClusterIPs = "", nil
		}
		if reflect.DeepEqual(old.Spec.IPFamilies, s.IPFamilies) {
			s.IPFamilies = nil
		}
		if policyString(old.Spec.IPFamilyPolicy) == policyString(s.IPFamilyPolicy) {
			s.IPFamilyPolicy = nil
		}
	}
	if needsNodePort(old) && !needsNodePort(svc) && nodePortSet(old).IsSuperset(nodePortSet(svc)) {
		for i := range s.Ports {
			s.Ports[i].NodePort = 0
		}
	}
	if needsHealthCheck(old) && !needsHealthCheck(svc) && old.Spec.HealthCheckNodePort == s.HealthCheckNodePort {
		s.HealthCheckNodePort = 0
	}
	wasLB, isLB := old.Spec.Type == corev1.ServiceTypeLoadBalancer, s.Type == corev1.ServiceTypeLoadBalancer
	if wasLB && !isLB {
		if a, b := old.Spec.AllocateLoadBalancerNodePorts, s.AllocateLoadBalancerNodePorts; a != nil && b != nil && *a == *b {
			s.AllocateLoadBalancerNodePorts = nil
		}
		if sameLoadBalancerClass(old, svc) {
			s.LoadBalancerClass = nil
		}
	}
	if externallyAccessible(old) && !externallyAccessible(svc) && old.Spec.ExternalTrafficPolicy == s.ExternalTrafficPolicy {
		s.ExternalTrafficPolicy = ""
	}
	if !isLB {
		svc.Status.LoadBalancer = corev1.LoadBalancerStatus{}
	}
}

func needsClusterIP(svc *corev1.Service) bool { return svc.Spec.Type != corev1.ServiceTypeExternalName }

func needsNodePort(svc *corev1.Service) bool {
	return svc.Spec.Type == corev1.ServiceTypeNodePort || svc.Spec.Type == corev1.ServiceTypeLoadBalancer
}

func sameClusterIPs(a, b *corev1.Service) bool {
	return a.Spec.ClusterIP == b.Spec.ClusterIP && slices.Equal(a.Spec.ClusterIPs, b.Spec.ClusterIPs)
}

func nodePortSet(svc *corev1.Service) sets.Set[int32] {
	out := sets.New[int32]()
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 {
			out.Insert(p.NodePort)
		}
	}
	return out
}

func policyString(p *corev1.IPFamilyPolicy) string {
	if p == nil {
		return ""
	}
	return string(*p)
}
