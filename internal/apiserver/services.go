package apiserver

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"sync"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/generic"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/apiserver/pkg/storage/storagebackend/factory"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/svcplane/svcplane/internal/allocator/ipallocator"
	"github.com/svcplane/svcplane/internal/allocator/portallocator"
	"github.com/svcplane/svcplane/internal/allocator/rangestore"
	"github.com/svcplane/svcplane/internal/allocator/repair"
	"github.com/svcplane/svcplane/internal/registry/core/service"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Keys of the allocation maps under the etcd prefix, as kube-apiserver.
const (
	keyNodePorts         = "/ranges/servicenodeports"
	keyServiceIPs        = "/ranges/serviceips"
	keySecondaryService  = "/ranges/secondaryserviceips"
	rangesResourcePrefix = "/ranges"
)

// serviceAllocators builds the ClusterIP allocators (one per configured
// family) and the NodePort allocator. ipStore writes IPAddress objects in
// IPAddress mode; f feeds the allocators' view of ServiceCIDRs and taken
// IPs.
// The stores map holds the RangeAllocation stores by "nodeports" and, in
// bitmap mode, by family.
func serviceAllocators(o *Options, optsGetter generic.RESTOptionsGetter, ipStore ipallocator.IPAddressStore, f informers.SharedInformerFactory) (*service.Allocators, map[string]rangestore.Interface, error) {
	cidrs, err := ServiceCIDRs(o.ServiceClusterIPRange)
	if err != nil {
		return nil, nil, err
	}
	raw, err := rangeStorage(optsGetter)
	if err != nil {
		return nil, nil, err
	}
	ports, _ := portallocator.ParseRange(o.ServiceNodePortRange)
	stores := map[string]rangestore.Interface{
		"nodeports": rangestore.NewEtcd(raw, keyNodePorts, ports.String(), uint64(ports.Size)),
	}
	al := &service.Allocators{
		IPs:       map[corev1.IPFamily]ipallocator.Interface{},
		NodePorts: portallocator.New(ports, stores["nodeports"]),
	}
	var byIP []*ipallocator.IPAddressAllocator
	view := newServiceCIDRView(f)
	for i, c := range cidrs {
		maxBits := 64
		if o.ServiceIPAllocator == AllocatorBitmap {
			maxBits = ipallocator.BitmapMaxHostBits
		}
		r, err := ipallocator.NewRange(c, maxBits)
		if err != nil {
			return nil, nil, err
		}
		if i == 0 {
			al.DefaultFamily = r.Family
		}
		if o.ServiceIPAllocator == AllocatorBitmap {
			key := []string{keyServiceIPs, keySecondaryService}[i]
			stores[string(r.Family)] = rangestore.NewEtcd(raw, key, r.String(), ipallocator.BitmapSize(r))
			al.IPs[r.Family] = ipallocator.NewBitmapAllocator(r, stores[string(r.Family)])
			continue
		}
		fam := r.Family
		a := ipallocator.NewIPAddressAllocator(fam, ipStore, func() []*ipallocator.Range { return view.ranges(r) })
		al.IPs[fam] = a
		byIP = append(byIP, a)
	}
	if len(byIP) > 0 {
		feedTakenIPs(f, byIP)
	}
	return al, stores, nil
}

// Repairer is one repair loop's pass.
type Repairer interface {
	RunOnce(ctx context.Context) error
}

// repairLoops are the Service allocation repairs: periodic passes and, in
// IPAddress mode, the event-driven leak check.
type repairLoops struct {
	passes  []Repairer
	orphans *repair.OrphanController
	// stopEvents shuts down their event broadcaster.
	stopEvents func()
}

// wireServices hooks the allocators into the services store and returns the
// repair loops that keep them consistent.
func wireServices(o *Options, byResource map[string]map[string]rest.Storage, optsGetter generic.RESTOptionsGetter, f informers.SharedInformerFactory, client kubernetes.Interface) (*service.Allocators, repairLoops, error) {
	svc, ok1 := byResource["services"]["services"].(*resource.REST)
	ips, ok2 := byResource["ipaddresses.networking.k8s.io"]["ipaddresses"].(*resource.REST)
	if !ok1 || !ok2 {
		return nil, repairLoops{}, fmt.Errorf("services or ipaddresses storage missing")
	}
	al, stores, err := serviceAllocators(o, optsGetter, ipallocator.NewRegistryStore(ips), f)
	if err != nil {
		return nil, repairLoops{}, err
	}
	al.Install(svc.Store)
	return al, repairers(al, stores, client, f), nil
}

// repairers builds a repair loop per ClusterIP family and one for NodePorts.
func repairers(al *service.Allocators, stores map[string]rangestore.Interface, client kubernetes.Interface, f informers.SharedInformerFactory) repairLoops {
	rec, stopEvents := repair.NewRecorder(client, "service-repair-controller")
	out := repairLoops{stopEvents: stopEvents}
	for _, fam := range []corev1.IPFamily{corev1.IPv4Protocol, corev1.IPv6Protocol} {
		switch a := al.IPs[fam].(type) {
		case *ipallocator.IPAddressAllocator:
			out.passes = append(out.passes, repair.NewIPAddressRepair(client, a.Contains, rec, clock.RealClock{}))
			if out.orphans == nil {
				out.orphans = repair.NewOrphanController(client, f, rec, clock.RealClock{})
			}
		case *ipallocator.BitmapAllocator:
			out.passes = append(out.passes, repair.NewBitmapRepair(client, stores[string(fam)], clusterIPKind(a), rec))
		}
	}
	out.passes = append(out.passes, repair.NewBitmapRepair(client, stores["nodeports"], nodePortKind(al.NodePorts.Range()), rec))
	return out
}

func clusterIPKind(a *ipallocator.BitmapAllocator) repair.Kind {
	return repair.Kind{Reason: "ClusterIP", Noun: "Cluster IP [" + string(a.Family()) + "]:", Values: func(svc *corev1.Service) []repair.Value {
		var out []repair.Value
		if svc.Spec.Type == corev1.ServiceTypeExternalName {
			return nil
		}
		for _, s := range svc.Spec.ClusterIPs {
			ip, err := netip.ParseAddr(s)
			if err != nil || familyOfAddr(ip) != a.Family() {
				continue
			}
			off, ok := a.Offset(ip)
			out = append(out, repair.Value{Offset: off, InRange: ok, Text: s})
		}
		return out
	}}
}

func nodePortKind(r portallocator.Range) repair.Kind {
	return repair.Kind{Reason: "Port", Noun: "Port", Values: func(svc *corev1.Service) []repair.Value {
		var out []repair.Value
		seen := map[int32]bool{}
		add := func(p int32) {
			if p != 0 && !seen[p] {
				seen[p] = true
				out = append(out, repair.Value{Offset: uint64(int(p) - r.Base), InRange: r.Contains(int(p)), Text: fmt.Sprint(p)})
			}
		}
		for _, p := range svc.Spec.Ports {
			add(p.NodePort)
		}
		add(svc.Spec.HealthCheckNodePort)
		return out
	}}
}

// rangeStorage is raw etcd storage for the RangeAllocation keys.
func rangeStorage(optsGetter generic.RESTOptionsGetter) (storage.Interface, error) {
	return rawStorage(optsGetter, "serviceipallocations", rangesResourcePrefix, func() runtime.Object { return &corev1.RangeAllocation{} })
}

// rawStorageGetter is a getter that makes its own raw storage
// (versionshare.WrapGetter's: the embedded member's in-process store).
type rawStorageGetter interface {
	RawStorage(c *storagebackend.ConfigForResource, newFunc, newListFunc func() runtime.Object, resourcePrefix string) (storage.Interface, factory.DestroyFunc, error)
}

// rawStorage is etcd storage (protobuf, core/v1 encoding) for keys below
// prefix that no REST resource serves.
func rawStorage(optsGetter generic.RESTOptionsGetter, resource, prefix string, newFunc func() runtime.Object) (storage.Interface, error) {
	opts, err := optsGetter.GetRESTOptions(schema.GroupResource{Resource: resource}, newFunc())
	if err != nil {
		return nil, err
	}
	newRaw := generic.NewRawStorage
	if r, ok := optsGetter.(rawStorageGetter); ok {
		newRaw = r.RawStorage
	}
	s, _, err := newRaw(opts.StorageConfig, newFunc, nil, prefix)
	if err != nil {
		return nil, fmt.Errorf("%s storage: %w", resource, err)
	}
	return s, nil
}

// feedTakenIPs keeps the IPAddress allocators' caches of taken IPs in step
// with the IPAddress objects, whoever created them.
func feedTakenIPs(f informers.SharedInformerFactory, as []*ipallocator.IPAddressAllocator) {
	observe := func(obj interface{}, exists bool) {
		if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = t.Obj
		}
		ipa, ok := obj.(*networkingv1.IPAddress)
		if !ok {
			return
		}
		ip, err := netip.ParseAddr(ipa.Name)
		if err != nil {
			return
		}
		for _, a := range as {
			if a.Family() == familyOfAddr(ip) {
				a.Observe(ip, exists)
			}
		}
	}
	_, _ = f.Networking().V1().IPAddresses().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj interface{}) { observe(obj, true) },
		DeleteFunc: func(obj interface{}) { observe(obj, false) },
	})
}

func familyOfAddr(ip netip.Addr) corev1.IPFamily {
	if ip.Unmap().Is4() {
		return corev1.IPv4Protocol
	}
	return corev1.IPv6Protocol
}

// ServiceCIDRFinalizer is the finalizer the ServiceCIDR controller puts on
// the ServiceCIDRs it keeps (upstream's name); the allocators use only
// ServiceCIDRs that carry it. The API server imports no controller, so the
// name is spelled here too; a test in internal/plane checks both agree.
const ServiceCIDRFinalizer = "networking.k8s.io/service-cidr-finalizer"

// serviceCIDRView turns the ServiceCIDR objects into allocation ranges.
type serviceCIDRView struct {
	lister func() ([]*networkingv1.ServiceCIDR, error)
	mu     sync.Mutex
	parsed map[string]*ipallocator.Range
}

func newServiceCIDRView(f informers.SharedInformerFactory) *serviceCIDRView {
	l := f.Networking().V1().ServiceCIDRs().Lister()
	return &serviceCIDRView{
		lister: func() ([]*networkingv1.ServiceCIDR, error) { return l.List(labels.Everything()) },
		parsed: map[string]*ipallocator.Range{},
	}
}

// ranges returns the configured range of a family first, then the other
// usable ServiceCIDRs of that family (finalizer set, not being deleted, not
// marked not Ready), sorted by name.
func (v *serviceCIDRView) ranges(configured *ipallocator.Range) []*ipallocator.Range {
	out := []*ipallocator.Range{configured}
	objs, _ := v.lister()
	sort.Slice(objs, func(i, j int) bool { return objs[i].Name < objs[j].Name })
	seen := map[string]bool{configured.String(): true}
	for _, sc := range objs {
		// Only ServiceCIDRs that carry the controller's finalizer: deleting
		// one then waits until its IPs are gone.
		if sc.DeletionTimestamp != nil || notReady(sc) || !slices.Contains(sc.Finalizers, ServiceCIDRFinalizer) {
			continue
		}
		for _, c := range sc.Spec.CIDRs {
			r := v.parse(c)
			if r == nil || r.Family != configured.Family || seen[r.String()] {
				continue
			}
			seen[r.String()] = true
			out = append(out, r)
		}
	}
	return out
}

func (v *serviceCIDRView) parse(cidr string) *ipallocator.Range {
	v.mu.Lock()
	defer v.mu.Unlock()
	if r, ok := v.parsed[cidr]; ok {
		return r
	}
	r, err := ipallocator.ParseRange(cidr, 64)
	if err != nil {
		r = nil
	}
	v.parsed[cidr] = r
	return r
}

func notReady(sc *networkingv1.ServiceCIDR) bool {
	for _, c := range sc.Status.Conditions {
		if c.Type == networkingv1.ServiceCIDRConditionReady {
			return c.Status == "False"
		}
	}
	return false
}
