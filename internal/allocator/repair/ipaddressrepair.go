package repair

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/allocator/ipallocator"
)

// OrphanGracePeriod is how old an IPAddress without a Service must be
// before it is deleted (a create in flight writes the IPAddress first).
const OrphanGracePeriod = 60 * time.Second

// IPAddressRepair repairs ClusterIPs in IPAddress mode.
type IPAddressRepair struct {
	client   kubernetes.Interface
	inRange  func(netip.Addr) bool
	recorder Recorder
	clock    clock.PassiveClock
	leaked   leaks[string]
}

// NewIPAddressRepair returns a repairer; inRange says whether an IP lies in
// a usable service range.
func NewIPAddressRepair(client kubernetes.Interface, inRange func(netip.Addr) bool, rec Recorder, clk clock.PassiveClock) *IPAddressRepair {
	return &IPAddressRepair{client: client, inRange: inRange, recorder: rec, clock: clk, leaked: leaks[string]{}}
}

// RunOnce makes one pass. IPAddresses are listed before Services: a
// Service created in between has its IPAddress already (a create of it
// finds AlreadyExists), and one deleted in between is not listed.
func (r *IPAddressRepair) RunOnce(ctx context.Context) error {
	ipList, err := r.client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	svcs, err := r.client.CoreV1().Services(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	byName := map[string]*networkingv1.IPAddress{}
	for i := range ipList.Items {
		byName[ipList.Items[i].Name] = &ipList.Items[i]
	}
	held := map[string]bool{}
	for i := range svcs.Items {
		svc := &svcs.Items[i]
		for _, ip := range serviceIPs(svc) {
			held[ip.String()] = true
			r.checkServiceIP(ctx, svc, ip, byName[ip.String()])
		}
	}
	seen := map[string]bool{}
	for name, obj := range byName {
		if held[name] || obj.Labels[ipallocator.LabelManagedBy] != ipallocator.ManagedByService {
			continue
		}
		seen[name] = true
		if r.leaked.due(name) && r.clock.Since(obj.CreationTimestamp.Time) > OrphanGracePeriod {
			err := r.client.NetworkingV1().IPAddresses().Delete(ctx, name, metav1.DeleteOptions{
				Preconditions: &metav1.Preconditions{UID: &obj.UID}})
			if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
				return err
			}
			delete(seen, name)
		}
	}
	r.leaked.record(seen)
	return nil
}

func (r *IPAddressRepair) checkServiceIP(ctx context.Context, svc *corev1.Service, ip netip.Addr, obj *networkingv1.IPAddress) {
	fam := "IPv4"
	if ip.Is6() {
		fam = "IPv6"
	}
	if !r.inRange(ip) {
		r.recorder.Warn(svc, "ClusterIPOutOfRange", fmt.Sprintf("Cluster IP [%s]: %s is not within any configured Service CIDR; please recreate service", fam, ip))
		return
	}
	if obj == nil {
		if !r.stillHolds(ctx, svc, ip) {
			return // deleted (its IPAddress freed) since the list
		}
		r.recorder.Warn(svc, "ClusterIPNotAllocated", fmt.Sprintf("Cluster IP [%s]: %s is not allocated; repairing", fam, ip))
		owner := ipallocator.Owner{Namespace: svc.Namespace, Name: svc.Name}
		_, err := r.client.NetworkingV1().IPAddresses().Create(ctx, ipallocator.NewIPAddress(ip, owner), metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			r.recorder.Warn(svc, "ClusterIPNotAllocated", fmt.Sprintf("Cluster IP [%s]: %s could not be allocated: %v", fam, ip, err))
		}
		return
	}
	if p := obj.Spec.ParentRef; p == nil || p.Resource != "services" || p.Namespace != svc.Namespace || p.Name != svc.Name {
		r.recorder.Warn(svc, "ClusterIPAlreadyAllocated", fmt.Sprintf("Cluster IP [%s]: %s was assigned to multiple services; please recreate service", fam, ip))
	}
}

// stillHolds re-reads svc from storage: a Service deleted since the list
// must not get its freed IPAddress back (that would leak it).
func (r *IPAddressRepair) stillHolds(ctx context.Context, svc *corev1.Service, ip netip.Addr) bool {
	cur, err := r.client.CoreV1().Services(svc.Namespace).Get(ctx, svc.Name, metav1.GetOptions{})
	if err != nil || cur.UID != svc.UID {
		return false
	}
	for _, s := range cur.Spec.ClusterIPs {
		if s == ip.String() {
			return true
		}
	}
	return false
}

// serviceIPs returns the ClusterIPs a Service holds.
func serviceIPs(svc *corev1.Service) []netip.Addr {
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	var out []netip.Addr
	for _, s := range svc.Spec.ClusterIPs {
		if ip, err := netip.ParseAddr(s); err == nil {
			out = append(out, ip)
		}
	}
	return out
}

// Leaked returns how many IPAddresses are currently counted as orphaned.
func (r *IPAddressRepair) Leaked() int { return len(r.leaked) }
