package ipvs

import (
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"sync"
	"syscall"

	"github.com/svcplane/svcplane/internal/proxy/scheduler"
)

// FakeHandle is an in-memory Handle enforcing the kernel's rules: no
// duplicate virtual or real server (EEXIST), no update or delete of a
// missing one (ENOENT), a known scheduler (ENOENT, as the kernel answers
// for an unloaded ip_vs_<sched> module), weights ≥ 0. Real servers carry
// connection counters that only SetConnections changes (the kernel's
// traffic): adds start them at 0, updates keep them.
type FakeHandle struct {
	mu       sync.Mutex
	services map[string]*fakeService
	// Calls counts mutating calls (tests check syncs send only changes).
	Calls int
}

type fakeService struct {
	vs    VirtualServer
	dests map[string]RealServer
}

// NewFakeHandle returns an empty FakeHandle.
func NewFakeHandle() *FakeHandle { return &FakeHandle{services: map[string]*fakeService{}} }

func validScheduler(name string) error {
	if !slices.Contains(scheduler.Names, name) {
		return fmt.Errorf("scheduler %q: %w", name, syscall.ENOENT)
	}
	return nil
}

// GetVirtualServers implements Handle (sorted by key).
func (f *FakeHandle) GetVirtualServers() ([]*VirtualServer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*VirtualServer
	for _, s := range f.services {
		v := s.vs
		out = append(out, &v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out, nil
}

// AddVirtualServer implements Handle.
func (f *FakeHandle) AddVirtualServer(v *VirtualServer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls++
	if f.services[v.Key()] != nil {
		return fmt.Errorf("virtual server %s: %w", v.Key(), syscall.EEXIST)
	}
	if err := validScheduler(v.Scheduler); err != nil {
		return err
	}
	f.services[v.Key()] = &fakeService{vs: *v, dests: map[string]RealServer{}}
	return nil
}

// UpdateVirtualServer implements Handle.
func (f *FakeHandle) UpdateVirtualServer(v *VirtualServer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls++
	s := f.services[v.Key()]
	if s == nil {
		return fmt.Errorf("virtual server %s: %w", v.Key(), syscall.ENOENT)
	}
	if err := validScheduler(v.Scheduler); err != nil {
		return err
	}
	s.vs = *v
	return nil
}

// DeleteVirtualServer implements Handle; its real servers go with it.
func (f *FakeHandle) DeleteVirtualServer(v *VirtualServer) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls++
	if f.services[v.Key()] == nil {
		return fmt.Errorf("virtual server %s: %w", v.Key(), syscall.ENOENT)
	}
	delete(f.services, v.Key())
	return nil
}

func (f *FakeHandle) service(v *VirtualServer) (*fakeService, error) {
	s := f.services[v.Key()]
	if s == nil {
		return nil, fmt.Errorf("virtual server %s: %w", v.Key(), syscall.ENOENT)
	}
	return s, nil
}

// GetRealServers implements Handle (sorted by key).
func (f *FakeHandle) GetRealServers(v *VirtualServer) ([]*RealServer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.service(v)
	if err != nil {
		return nil, err
	}
	var out []*RealServer
	for _, d := range s.dests {
		d := d
		out = append(out, &d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out, nil
}

func (f *FakeHandle) changeReal(v *VirtualServer, r *RealServer, mustExist bool, apply func(*fakeService)) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Calls++
	s, err := f.service(v)
	if err != nil {
		return err
	}
	if r.Weight < 0 {
		return fmt.Errorf("real server %s weight %d: %w", r.Key(), r.Weight, syscall.EINVAL)
	}
	_, exists := s.dests[r.Key()]
	switch {
	case exists && !mustExist:
		return fmt.Errorf("real server %s of %s: %w", r.Key(), v.Key(), syscall.EEXIST)
	case !exists && mustExist:
		return fmt.Errorf("real server %s of %s: %w", r.Key(), v.Key(), syscall.ENOENT)
	}
	apply(s)
	return nil
}

// AddRealServer implements Handle.
func (f *FakeHandle) AddRealServer(v *VirtualServer, r *RealServer) error {
	return f.changeReal(v, r, false, func(s *fakeService) {
		d := *r
		d.ActiveConn, d.InactiveConn = 0, 0
		s.dests[r.Key()] = d
	})
}

// UpdateRealServer implements Handle.
func (f *FakeHandle) UpdateRealServer(v *VirtualServer, r *RealServer) error {
	return f.changeReal(v, r, true, func(s *fakeService) {
		d, old := *r, s.dests[r.Key()]
		d.ActiveConn, d.InactiveConn = old.ActiveConn, old.InactiveConn
		s.dests[r.Key()] = d
	})
}

// SetConnections sets the connection counters of real server dest of v,
// as traffic would (it is not counted in Calls).
func (f *FakeHandle) SetConnections(v *VirtualServer, dest netip.AddrPort, active, inactive int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.service(v)
	if err != nil {
		return err
	}
	d, ok := s.dests[dest.String()]
	if !ok {
		return fmt.Errorf("real server %s of %s: %w", dest, v.Key(), syscall.ENOENT)
	}
	d.ActiveConn, d.InactiveConn = active, inactive
	s.dests[dest.String()] = d
	return nil
}

// DeleteRealServer implements Handle.
func (f *FakeHandle) DeleteRealServer(v *VirtualServer, r *RealServer) error {
	return f.changeReal(v, r, true, func(s *fakeService) { delete(s.dests, r.Key()) })
}
