package tracker

import (
	"maps"
	"net/netip"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	discovery "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/svcplane/svcplane/internal/proxy"
)

// Tracker keeps the converted state of every watched object and builds
// snapshots from it.
type Tracker struct {
	family   proxy.IPFamily
	nodeName string
	onChange func()

	mu        sync.Mutex
	services  map[types.NamespacedName][]*proxy.ServicePort
	slices    map[types.NamespacedName]map[string]map[proxy.ServicePortName][]proxy.Endpoint
	endpoints map[types.NamespacedName]map[proxy.ServicePortName][]proxy.Endpoint
	node      proxy.Node
	cidrs     map[string][]netip.Prefix

	// dirty: ports changed since the last NextSnapshot; allDirty: unknown
	// (before the first NextSnapshot, or after a Node/ServiceCIDR change).
	dirty    map[proxy.ServicePortName]struct{}
	allDirty bool
	// triggers: last-change-trigger-times since the last NextSnapshot,
	// only those after start (older ones were programmed before us).
	triggers []time.Time
	start    time.Time
	// last is the previous NextSnapshot's (never changed after it was
	// handed out): the next one is a copy of its maps with the dirty
	// ports replaced, not a rebuild from every Service.
	last *proxy.Snapshot
}

// New returns a Tracker for one IP family on the node nodeName; onChange
// (may be nil) is called after every change.
func New(family proxy.IPFamily, nodeName string, onChange func()) *Tracker {
	if onChange == nil {
		onChange = func() {}
	}
	return &Tracker{
		family: family, nodeName: nodeName, onChange: onChange,
		services:  map[types.NamespacedName][]*proxy.ServicePort{},
		slices:    map[types.NamespacedName]map[string]map[proxy.ServicePortName][]proxy.Endpoint{},
		endpoints: map[types.NamespacedName]map[proxy.ServicePortName][]proxy.Endpoint{},
		node:      proxy.Node{Name: nodeName},
		cidrs:     map[string][]netip.Prefix{},
		dirty:     map[proxy.ServicePortName]struct{}{},
		allDirty:  true,
		start:     time.Now(),
	}
}

// markPorts records the ports as changed.
func (t *Tracker) markPorts(ports []*proxy.ServicePort) {
	for _, sp := range ports {
		t.dirty[sp.Name] = struct{}{}
	}
}

// markEndpoints records the endpoints' ports as changed.
func (t *Tracker) markEndpoints(eps map[proxy.ServicePortName][]proxy.Endpoint) {
	for name := range eps {
		t.dirty[name] = struct{}{}
	}
}

func (t *Tracker) changed() { t.onChange() }

// OnServiceUpdate records the Service's current state (nil = deleted).
func (t *Tracker) OnServiceUpdate(key types.NamespacedName, svc *v1.Service) {
	t.mu.Lock()
	t.markPorts(t.services[key])
	// The snapshot holds a Service's endpoints only while it exists.
	t.markEndpoints(t.endpoints[key])
	if svc == nil {
		delete(t.services, key)
	} else {
		t.services[key] = ServicePorts(svc, t.family)
		t.markPorts(t.services[key])
	}
	t.mu.Unlock()
	t.changed()
}

// OnEndpointSliceUpdate records one EndpointSlice (deleted = true removes it).
func (t *Tracker) OnEndpointSliceUpdate(slice *discovery.EndpointSlice, deleted bool) {
	t.OnSliceUpdate(NewSlice(slice, t.nodeName), deleted)
}

// OnSliceUpdate records one converted EndpointSlice (deleted = true
// removes it); slices of another family or without a service-name label
// are ignored. The tracker keeps s.Endpoints as they are (and may sort
// them): s must have been converted for this tracker's node.
func (t *Tracker) OnSliceUpdate(s *Slice, deleted bool) {
	if s.Service == "" || s.Family != t.family {
		return
	}
	eps := s.Endpoints
	if eps == nil {
		eps = map[proxy.ServicePortName][]proxy.Endpoint{}
	}
	svc := types.NamespacedName{Namespace: s.Namespace, Name: s.Service}
	t.mu.Lock()
	bySlice := t.slices[svc]
	if bySlice == nil {
		bySlice = map[string]map[proxy.ServicePortName][]proxy.Endpoint{}
		t.slices[svc] = bySlice
	}
	if deleted {
		delete(bySlice, s.Name)
	} else {
		bySlice[s.Name] = eps
	}
	t.markEndpoints(t.endpoints[svc])
	if tt := s.TriggerTime; !deleted && tt.After(t.start) {
		t.triggers = append(t.triggers, tt)
	}
	if len(bySlice) == 0 {
		delete(t.slices, svc)
		delete(t.endpoints, svc)
	} else {
		t.endpoints[svc] = mergeSlices(bySlice)
		t.markEndpoints(t.endpoints[svc])
	}
	t.mu.Unlock()
	t.changed()
}

// mergeSlices joins a Service's slices, de-duplicating endpoints by
// address and port and favouring a local copy, as kube-proxy does. The
// common single slice without duplicates is returned as it is (sorted in
// place): its lists are the tracker's own, so the Service's endpoints are
// held once, not twice.
func mergeSlices(bySlice map[string]map[proxy.ServicePortName][]proxy.Endpoint) map[proxy.ServicePortName][]proxy.Endpoint {
	if len(bySlice) == 1 {
		for _, ports := range bySlice {
			if sortedUnique(ports) {
				return ports
			}
		}
	}
	seen := map[proxy.ServicePortName]map[string]proxy.Endpoint{}
	for _, ports := range bySlice {
		for name, eps := range ports {
			set := seen[name]
			if set == nil {
				set = map[string]proxy.Endpoint{}
				seen[name] = set
			}
			for _, ep := range eps {
				if _, dup := set[ep.String()]; !dup || ep.IsLocal {
					set[ep.String()] = ep
				}
			}
		}
	}
	out := make(map[proxy.ServicePortName][]proxy.Endpoint, len(seen))
	for name, set := range seen {
		list := make([]proxy.Endpoint, 0, len(set))
		for _, ep := range set {
			list = append(list, ep)
		}
		proxy.SortEndpoints(list)
		out[name] = list
	}
	return out
}

// sortedUnique sorts each list (SortEndpoints) and reports whether none
// holds an address and port twice. A list is sorted only when it is not
// yet: a sorted one may be in a snapshot already (sorting is the only
// write, done before the list is shared).
func sortedUnique(ports map[proxy.ServicePortName][]proxy.Endpoint) bool {
	for _, eps := range ports {
		if !slices.IsSortedFunc(eps, compareEndpoints) {
			proxy.SortEndpoints(eps)
		}
		for i := 1; i < len(eps); i++ {
			if eps[i].IP == eps[i-1].IP && eps[i].Port == eps[i-1].Port {
				return false
			}
		}
	}
	return true
}

func compareEndpoints(a, b proxy.Endpoint) int {
	if c := a.IP.Compare(b.IP); c != 0 {
		return c
	}
	return int(a.Port) - int(b.Port)
}

// OnNodeUpdate records the proxy's own Node (nil = deleted).
func (t *Tracker) OnNodeUpdate(node *v1.Node) {
	t.mu.Lock()
	old := t.node
	if node == nil {
		t.node = proxy.Node{Name: t.nodeName}
	} else if node.Name == t.nodeName {
		t.node = convertNode(node, t.family)
	}
	// Labels (zone) and addresses shape the rules; a status-only update
	// (heartbeat conditions) or a deletion timestamp does not.
	if !maps.Equal(old.Labels, t.node.Labels) || !slices.Equal(old.IPs, t.node.IPs) {
		t.allDirty = true
	}
	t.mu.Unlock()
	t.changed()
}

// OnServiceCIDRUpdate records one ServiceCIDR (nil = deleted).
func (t *Tracker) OnServiceCIDRUpdate(name string, sc *networkingv1.ServiceCIDR) {
	t.mu.Lock()
	if sc == nil {
		delete(t.cidrs, name)
	} else {
		var ps []netip.Prefix
		for _, c := range sc.Spec.CIDRs {
			if p, err := netip.ParsePrefix(c); err == nil && proxy.FamilyOf(p.Addr()) == t.family {
				ps = append(ps, p.Masked())
			}
		}
		t.cidrs[name] = ps
	}
	t.allDirty = true
	t.mu.Unlock()
	t.changed()
}

// Snapshot returns the current state with Changes nil. Slices inside are
// shared between snapshots but never mutated: the tracker replaces, never
// edits, them.
func (t *Tracker) Snapshot() *proxy.Snapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.snapshot()
}

// NextSnapshot returns the current state with Changes naming every port
// changed since the previous NextSnapshot call (nil on the first call and
// after a Node label/address or ServiceCIDR change), and starts a new
// change set. A tracker has at most one NextSnapshot consumer (the
// Proxier of its family); others use Snapshot.
func (t *Tracker) NextSnapshot() *proxy.Snapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	var s *proxy.Snapshot
	if t.allDirty || t.last == nil {
		s = t.snapshot()
	} else {
		s = t.patched(t.last)
		s.Changes = &proxy.ChangeSet{Ports: t.dirty}
	}
	t.last = s
	s.LastChangeTriggerTimes, t.triggers = t.triggers, nil
	t.dirty, t.allDirty = map[proxy.ServicePortName]struct{}{}, false
	return s
}

func (t *Tracker) snapshot() *proxy.Snapshot {
	s := &proxy.Snapshot{
		Family:    t.family,
		Services:  make(map[proxy.ServicePortName]*proxy.ServicePort, len(t.services)),
		Endpoints: make(map[proxy.ServicePortName][]proxy.Endpoint, len(t.services)),
		Node:      t.node,
	}
	for key, ports := range t.services {
		for _, sp := range ports {
			s.Services[sp.Name] = sp
		}
		for name, eps := range t.endpoints[key] {
			s.Endpoints[name] = eps
		}
	}
	for _, ps := range t.cidrs {
		s.ServiceCIDRs = append(s.ServiceCIDRs, ps...)
	}
	return s
}

// patched is prev with the dirty ports as the tracker holds them now:
// what snapshot() builds, for a copy of two maps and the changes instead
// of a pass over every Service.
func (t *Tracker) patched(prev *proxy.Snapshot) *proxy.Snapshot {
	s := &proxy.Snapshot{
		Family:    t.family,
		Services:  maps.Clone(prev.Services),
		Endpoints: maps.Clone(prev.Endpoints),
		Node:      t.node,
	}
	for name := range t.dirty {
		key := types.NamespacedName{Namespace: name.Namespace, Name: name.Name}
		delete(s.Services, name)
		delete(s.Endpoints, name)
		ports, ok := t.services[key]
		if !ok {
			continue
		}
		for _, sp := range ports {
			if sp.Name == name {
				s.Services[name] = sp
			}
		}
		if eps, ok := t.endpoints[key][name]; ok {
			s.Endpoints[name] = eps
		}
	}
	for _, ps := range t.cidrs {
		s.ServiceCIDRs = append(s.ServiceCIDRs, ps...)
	}
	return s
}

// lastChangeTriggerTime parses the slice's
// endpoints.kubernetes.io/last-change-trigger-time (zero when absent or
// malformed).
func lastChangeTriggerTime(slice *discovery.EndpointSlice) time.Time {
	v, ok := slice.Annotations[v1.EndpointsLastChangeTriggerTime]
	if !ok {
		return time.Time{}
	}
	tt, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}
	}
	return tt
}

// handlers adapts typed callbacks to informer event handlers.
func handlers[T any](update func(obj T, deleted bool)) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { update(obj.(T), false) },
		UpdateFunc: func(_, obj any) { update(obj.(T), false) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if o, ok := obj.(T); ok {
				update(o, true)
			}
		},
	}
}
