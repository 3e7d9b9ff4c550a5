package service

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
)

// BeginUpdate keeps allocated values a client left out (re-applying the
// same YAML keeps the ClusterIP and NodePorts), drops what a type change
// makes meaningless, and allocates or schedules the release of what the
// change adds or removes.
func (al *Allocators) BeginUpdate(ctx context.Context, obj, oldObj runtime.Object, opts *metav1.UpdateOptions) (genericregistry.FinishFunc, error) {
	svc, old := obj.(*corev1.Service), oldObj.(*corev1.Service)
	dryRun := isDryRun(opts.DryRun)
	PatchAllocatedValues(svc, old)
	NormalizeClusterIPs(svc, old)
	// Dropping type-dependent fields before allocating lets the allocation
	// see that a NodePort → ClusterIP change gives its ports back.
	PrepareForUpdate(svc, old)
	if errs := beforeAllocation(ValidateUpdate(svc, old)); len(errs) > 0 {
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
	case !holdsClusterIP(old):
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
