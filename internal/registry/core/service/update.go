package service

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
)

// BeginUpdate keeps allocated values a client left out (re-applying the
// same YAML keeps the ClusterIP and NodePorts), drops what a type change
// makes meaningless, and allocates or schedules the release of what the
// change adds or removes.
func (al *Allocators) BeginUpdate(ctx context.Context, obj, oldObj runtime.Object, opts *metav1.UpdateOptions) (genericregistry.FinishFunc, error) {
	svc, old := obj.(*corev1.Service), oldObj.(*corev1.Service)
	dryRun := isDryRun(opts.DryRun)
	patchAllocatedValues(svc, old)
	normalizeClusterIPs(svc, old)
	dropTypeDependentFields(svc, old)
	if errs := ValidateUpdate(svc, old); len(errs) > 0 {
		return nil, invalid(svc, errs)
	}
	if err := al.initIPFamilyFields(svc, old); err != nil {
		return nil, err
	}
	var taken, dropped release
	var err error
	taken.ips, dropped.ips, err = al.updateClusterIPs(ctx, svc, old, dryRun)
	if err != nil {
		return nil, err
	}
	if taken.ports, dropped.ports, err = al.allocNodePorts(ctx, svc, old, dryRun); err != nil {
		al.undo(ctx, svc, taken.ips, dryRun)
		return nil, err
	}
	return func(ctx context.Context, success bool) {
		if dryRun {
			return
		}
		if success {
			al.free(context.WithoutCancel(ctx), svc, dropped)
		} else {
			al.free(context.WithoutCancel(ctx), svc, taken)
		}
	}, nil
}

// updateClusterIPs handles ExternalName ⇄ other types and dual-stack
// upgrades and downgrades.
func (al *Allocators) updateClusterIPs(ctx context.Context, svc, old *corev1.Service, dryRun bool) (taken, dropped map[corev1.IPFamily]string, err error) {
	switch {
	case old.Spec.Type == corev1.ServiceTypeExternalName && svc.Spec.Type != corev1.ServiceTypeExternalName:
		taken, err = al.allocClusterIPs(ctx, svc, svc.Spec.IPFamilies, dryRun)
		return taken, nil, err
	case !needsClusterIP(old):
		return nil, nil, nil
	case svc.Spec.Type == corev1.ServiceTypeExternalName:
		return nil, clusterIPsByFamily(old), nil
	case len(old.Spec.IPFamilies) == 1 && len(svc.Spec.IPFamilies) == 2:
		taken, err = al.allocClusterIPs(ctx, svc, svc.Spec.IPFamilies[1:], dryRun)
		return taken, nil, err
	case len(old.Spec.IPFamilies) == 2 && len(svc.Spec.IPFamilies) == 1 && len(old.Spec.ClusterIPs) == 2:
		return nil, map[corev1.IPFamily]string{old.Spec.IPFamilies[1]: old.Spec.ClusterIPs[1]}, nil
	}
	return nil, nil, nil
}

// patchAllocatedValues copies allocated values the client did not send.
func patchAllocatedValues(svc, old *corev1.Service) {
	if needsClusterIP(old) && svc.Spec.Type != corev1.ServiceTypeExternalName {
		if svc.Spec.ClusterIP == "" {
			svc.Spec.ClusterIP = old.Spec.ClusterIP
		}
		if len(svc.Spec.ClusterIPs) == 0 && len(old.Spec.ClusterIPs) > 0 {
			svc.Spec.ClusterIPs = old.Spec.ClusterIPs
		}
	}
	if needsNodePort(old) && needsNodePort(svc) {
		used := sets.New[int32]()
		for _, p := range svc.Spec.Ports {
			if p.NodePort != 0 {
				used.Insert(p.NodePort)
			}
		}
		byName := map[string]int32{}
		for _, p := range old.Spec.Ports {
			byName[p.Name] = p.NodePort
		}
		for i := range svc.Spec.Ports {
			p := &svc.Spec.Ports[i]
			if v := byName[p.Name]; p.NodePort == 0 && v != 0 && !used.Has(v) {
				p.NodePort = v
				used.Insert(v)
			}
		}
	}
	if needsHealthCheck(old) && needsHealthCheck(svc) && svc.Spec.HealthCheckNodePort == 0 {
		svc.Spec.HealthCheckNodePort = old.Spec.HealthCheckNodePort
	}
}

// dropTypeDependentFields clears, after a type change, the fields the new
// type does not use, when the client left them as they were.
func dropTypeDependentFields(svc, old *corev1.Service) {
	if svc.Spec.Type == old.Spec.Type {
		return
	}
	s := &svc.Spec
	if s.Type == corev1.ServiceTypeExternalName && needsClusterIP(old) {
		if s.ClusterIP == old.Spec.ClusterIP && slices.Equal(s.ClusterIPs, old.Spec.ClusterIPs) {
			s.ClusterIP, s.ClusterIPs = "", nil
		}
		if slices.Equal(s.IPFamilies, old.Spec.IPFamilies) {
			s.IPFamilies = nil
		}
		if s.IPFamilyPolicy != nil && old.Spec.IPFamilyPolicy != nil && *s.IPFamilyPolicy == *old.Spec.IPFamilyPolicy {
			s.IPFamilyPolicy = nil
		}
	}
	if needsNodePort(old) && !needsNodePort(svc) && slices.Equal(nodePortsOf(svc), nodePortsOf(old)) {
		for i := range s.Ports {
			s.Ports[i].NodePort = 0
		}
	}
	if needsHealthCheck(old) && !needsHealthCheck(svc) && s.HealthCheckNodePort == old.Spec.HealthCheckNodePort {
		s.HealthCheckNodePort = 0
	}
	if !needsNodePort(svc) && s.ExternalTrafficPolicy == old.Spec.ExternalTrafficPolicy {
		s.ExternalTrafficPolicy = ""
	}
	if s.Type != corev1.ServiceTypeLoadBalancer {
		if s.AllocateLoadBalancerNodePorts != nil && old.Spec.AllocateLoadBalancerNodePorts != nil &&
			*s.AllocateLoadBalancerNodePorts == *old.Spec.AllocateLoadBalancerNodePorts {
			s.AllocateLoadBalancerNodePorts = nil
		}
		if s.LoadBalancerClass != nil && old.Spec.LoadBalancerClass != nil && *s.LoadBalancerClass == *old.Spec.LoadBalancerClass {
			s.LoadBalancerClass = nil
		}
	}
}
