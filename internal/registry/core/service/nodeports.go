package service

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/allocator/portallocator"
)

// shouldAllocateNodePorts: NodePort always; LoadBalancer unless
// allocateLoadBalancerNodePorts is false.
func shouldAllocateNodePorts(svc *corev1.Service) bool {
	if svc.Spec.Type == corev1.ServiceTypeNodePort {
		return true
	}
	return svc.Spec.Type == corev1.ServiceTypeLoadBalancer &&
		(svc.Spec.AllocateLoadBalancerNodePorts == nil || *svc.Spec.AllocateLoadBalancerNodePorts)
}

// nodePortsOf returns every node port svc holds, health check included.
func nodePortsOf(svc *corev1.Service) []int {
	set := sets.New[int]()
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 {
			set.Insert(int(p.NodePort))
		}
	}
	if svc.Spec.HealthCheckNodePort != 0 {
		set.Insert(int(svc.Spec.HealthCheckNodePort))
	}
	return sets.List(set)
}

// allocNodePorts fills in svc's missing node ports (one number shared by the
// protocols of one port) and its health check port, taking requested ones,
// in one atomic change. old is nil on create. It returns the ports it took
// and, on update, the old ones the change drops (to free after commit).
func (al *Allocators) allocNodePorts(ctx context.Context, svc, old *corev1.Service, dryRun bool) (taken, dropped []int, err error) {
	held := sets.New[int]()
	if old != nil {
		held.Insert(nodePortsOf(old)...)
	}
	byPort := map[int32]int32{}
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 && byPort[p.Port] == 0 {
			byPort[p.Port] = p.NodePort
		}
	}
	var requested []int
	where := map[int]*field.Path{}
	request := func(port int, path *field.Path) {
		if !held.Has(port) && where[port] == nil {
			requested = append(requested, port)
			where[port] = path
		}
	}
	var dynamic []*int32 // slots to fill, one per port number
	slotOf := map[int32]int{}
	for i := range svc.Spec.Ports {
		p := &svc.Spec.Ports[i]
		switch {
		case p.NodePort != 0 && needsNodePort(svc):
			request(int(p.NodePort), field.NewPath("spec", "ports").Index(i).Child("nodePort"))
		case p.NodePort == 0 && shouldAllocateNodePorts(svc):
			if np := byPort[p.Port]; np != 0 {
				p.NodePort = np
			} else if _, ok := slotOf[p.Port]; !ok {
				slotOf[p.Port] = len(dynamic)
				dynamic = append(dynamic, &p.NodePort)
			}
		}
	}
	if needsHealthCheck(svc) {
		if hc := int(svc.Spec.HealthCheckNodePort); hc != 0 {
			request(hc, field.NewPath("spec", "healthCheckNodePort"))
		} else {
			dynamic = append(dynamic, &svc.Spec.HealthCheckNodePort)
		}
	}
	if al.NodePorts == nil {
		return nil, nil, nil
	}
	got, err := al.NodePorts.Allocate(ctx, requested, len(dynamic), dryRun)
	if err != nil {
		return nil, nil, nodePortError(svc, err, where)
	}
	for i, slot := range dynamic {
		*slot = int32(got[i])
	}
	for i := range svc.Spec.Ports { // later entries of a shared port number
		if p := &svc.Spec.Ports[i]; p.NodePort == 0 && shouldAllocateNodePorts(svc) {
			if s, ok := slotOf[p.Port]; ok {
				p.NodePort = *dynamic[s]
			}
		}
	}
	if old != nil {
		dropped = sets.List(held.Difference(sets.New(nodePortsOf(svc)...)))
	}
	return append(requested, got...), dropped, nil
}

func nodePortError(svc *corev1.Service, err error, where map[int]*field.Path) error {
	var pe *portallocator.PortError
	if errors.As(err, &pe) && where[pe.Port] != nil {
		return invalid(svc, field.ErrorList{field.Invalid(where[pe.Port], pe.Port, pe.Err.Error())})
	}
	return apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: %v", err))
}
