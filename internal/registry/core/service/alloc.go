package service

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericregistry "k8s.io/apiserver/pkg/registry/generic/registry"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/allocator/ipallocator"
	"github.com/svcplane/svcplane/internal/allocator/portallocator"
)

// Allocators give Services their ClusterIPs and NodePorts. They hook into
// the generic store: BeginCreate/BeginUpdate allocate before the object is
// written and return a finish function that gives back what was taken when
// the write fails, and frees what the change dropped only once it
// succeeded (a crash leaks, never double-allocates). AfterDelete frees
// everything of a deleted Service, whether deleted directly or when its
// last finalizer went.
type Allocators struct {
	// IPs holds one allocator per configured family; DefaultFamily is the
	// family of the first --service-cluster-ip-range.
	IPs           map[corev1.IPFamily]ipallocator.Interface
	DefaultFamily corev1.IPFamily
	NodePorts     *portallocator.Allocator
}

// Install sets the hooks on the services store.
func (al *Allocators) Install(s *genericregistry.Store) {
	s.BeginCreate = al.BeginCreate
	s.BeginUpdate = al.BeginUpdate
	s.AfterDelete = al.AfterDelete
}

// release is what a finish function gives back.
type release struct {
	ips   map[corev1.IPFamily]string
	ports []int
}

func (al *Allocators) free(ctx context.Context, svc *corev1.Service, r release) {
	for fam, ip := range r.ips {
		a, ok := al.IPs[fam]
		addr, err := netip.ParseAddr(ip)
		if !ok || err != nil {
			continue
		}
		if err := a.Release(ctx, addr); err != nil {
			klog.ErrorS(err, "Releasing a ClusterIP failed; the repair loop will free it", "service", klog.KObj(svc), "ip", ip)
		}
	}
	if len(r.ports) > 0 && al.NodePorts != nil {
		if err := al.NodePorts.Release(ctx, r.ports); err != nil {
			klog.ErrorS(err, "Releasing NodePorts failed; the repair loop will free them", "service", klog.KObj(svc), "ports", r.ports)
		}
	}
}

func isDryRun(dryRun []string) bool { return len(dryRun) > 0 }

// beforeAllocation drops from an early validation (run before allocating,
// so that bad input takes nothing) what allocation itself fills in: a
// missing healthCheckNodePort. The strategy validates the whole Service
// again after allocation, as upstream does.
func beforeAllocation(errs field.ErrorList) field.ErrorList {
	hc := field.NewPath("spec", "healthCheckNodePort").String()
	return slices.DeleteFunc(errs, func(e *field.Error) bool { return e.Type == field.ErrorTypeRequired && e.Field == hc })
}

// BeginCreate defaults the IP family fields and allocates the ClusterIPs
// and NodePorts of a new Service.
func (al *Allocators) BeginCreate(ctx context.Context, obj runtime.Object, opts *metav1.CreateOptions) (genericregistry.FinishFunc, error) {
	svc := obj.(*corev1.Service)
	dryRun := isDryRun(opts.DryRun)
	NormalizeClusterIPs(svc, nil)
	if errs := beforeAllocation(Validate(svc)); len(errs) > 0 {
		return nil, invalid(svc, errs)
	}
	if err := al.initIPFamilyFields(svc, nil); err != nil {
		return nil, err
	}
	taken := release{}
	var err error
	if taken.ips, err = al.allocClusterIPs(ctx, svc, svc.Spec.IPFamilies, dryRun); err != nil {
		return nil, err
	}
	if taken.ports, _, err = al.allocNodePorts(ctx, svc, nil, dryRun); err != nil {
		if !dryRun {
			// ctx may be what failed (the request's deadline): give the
			// ClusterIPs back all the same.
			al.free(context.WithoutCancel(ctx), svc, release{ips: taken.ips})
		}
		return nil, err
	}
	return func(ctx context.Context, success bool) {
		if !success && !dryRun {
			al.free(context.WithoutCancel(ctx), svc, taken)
		}
	}, nil
}

// AfterDelete frees everything the deleted Service held.
func (al *Allocators) AfterDelete(obj runtime.Object, opts *metav1.DeleteOptions) {
	svc := obj.(*corev1.Service)
	if isDryRun(opts.DryRun) {
		return
	}
	al.free(context.Background(), svc, release{ips: clusterIPsByFamily(svc), ports: nodePortsOf(svc)})
}

// clusterIPsByFamily returns the allocated ClusterIPs of svc.
func clusterIPsByFamily(svc *corev1.Service) map[corev1.IPFamily]string {
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	out := map[corev1.IPFamily]string{}
	for _, ip := range svc.Spec.ClusterIPs {
		if addr, err := netip.ParseAddr(ip); err == nil {
			out[familyOf(addr)] = ip
		}
	}
	return out
}

func familyOf(ip netip.Addr) corev1.IPFamily {
	if ip.Unmap().Is4() {
		return corev1.IPv4Protocol
	}
	return corev1.IPv6Protocol
}

// allocClusterIPs gives svc an IP of each family in families that it lacks
// (or takes the one it asks for), and returns what it took.
func (al *Allocators) allocClusterIPs(ctx context.Context, svc *corev1.Service, families []corev1.IPFamily, dryRun bool) (map[corev1.IPFamily]string, error) {
	if !holdsClusterIP(svc) {
		return nil, nil
	}
	for len(svc.Spec.ClusterIPs) < len(svc.Spec.IPFamilies) {
		svc.Spec.ClusterIPs = append(svc.Spec.ClusterIPs, "")
	}
	taken := map[corev1.IPFamily]string{}
	owner := ipallocator.Owner{Namespace: svc.Namespace, Name: svc.Name}
	for i, fam := range svc.Spec.IPFamilies {
		if !containsFamily(families, fam) {
			continue
		}
		a := al.IPs[fam]
		var err error
		if want := svc.Spec.ClusterIPs[i]; want != "" {
			addr, perr := netip.ParseAddr(want)
			if perr == nil {
				err = a.Allocate(ctx, addr, owner, dryRun)
			}
			if perr != nil || err != nil {
				al.undo(ctx, svc, taken, dryRun)
				return nil, requestedIPError(svc, want, err)
			}
			taken[fam] = want
			continue
		}
		addr, err := a.AllocateNext(ctx, owner, dryRun)
		if err != nil {
			al.undo(ctx, svc, taken, dryRun)
			return nil, apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP: %v", err))
		}
		svc.Spec.ClusterIPs[i] = addr.String()
		taken[fam] = addr.String()
	}
	if len(svc.Spec.ClusterIPs) > 0 {
		svc.Spec.ClusterIP = svc.Spec.ClusterIPs[0]
	}
	return taken, nil
}

func (al *Allocators) undo(ctx context.Context, svc *corev1.Service, taken map[corev1.IPFamily]string, dryRun bool) {
	if !dryRun {
		al.free(ctx, svc, release{ips: taken})
	}
}

func requestedIPError(svc *corev1.Service, ip string, err error) error {
	var nir *ipallocator.ErrNotInRange
	if err != nil && !errors.Is(err, ipallocator.ErrAllocated) && !errors.As(err, &nir) {
		return apierrors.NewInternalError(fmt.Errorf("failed to allocate IP %v: %v", ip, err))
	}
	msg := "failed to allocate IP " + ip
	if err != nil {
		msg += ": " + err.Error()
	}
	return invalid(svc, field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs"), svc.Spec.ClusterIPs, msg)})
}

func invalid(svc *corev1.Service, errs field.ErrorList) error {
	return apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Service").GroupKind(), svc.Name, errs)
}

func containsFamily(fams []corev1.IPFamily, f corev1.IPFamily) bool {
	for _, x := range fams {
		if x == f {
			return true
		}
	}
	return false
}

// holdsClusterIP: every type but ExternalName, unless headless.
func holdsClusterIP(svc *corev1.Service) bool {
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return false
	}
	return !(svc.Spec.ClusterIP == corev1.ClusterIPNone ||
		(len(svc.Spec.ClusterIPs) > 0 && svc.Spec.ClusterIPs[0] == corev1.ClusterIPNone))
}
