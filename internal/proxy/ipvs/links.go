package ipvs

import (
	"fmt"
	"net/netip"
	"os/exec"
	"slices"
	"strings"
	"sync"
)

// Links manages the dummy interface service IPs are bound to.
type Links interface {
	EnsureDummy(name string) error
	Addrs(name string) ([]netip.Addr, error)
	AddAddr(name string, a netip.Addr) error
	DelAddr(name string, a netip.Addr) error
	DeleteLink(name string) error
}

// IPCommand implements Links with iproute2.
type IPCommand struct{}

func ipRun(args ...string) (string, error) {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// EnsureDummy implements Links.
func (IPCommand) EnsureDummy(name string) error {
	if _, err := ipRun("link", "show", name); err == nil {
		return nil
	}
	if _, err := ipRun("link", "add", name, "type", "dummy"); err != nil {
		return err
	}
	_, err := ipRun("link", "set", name, "up")
	return err
}

// Addrs implements Links.
func (IPCommand) Addrs(name string) ([]netip.Addr, error) {
	out, err := ipRun("-o", "addr", "show", "dev", name)
	if err != nil {
		return nil, err
	}
	var addrs []netip.Addr
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		for i := 0; i+1 < len(f); i++ {
			if f[i] == "inet" || f[i] == "inet6" {
				if p, err := netip.ParsePrefix(f[i+1]); err == nil {
					addrs = append(addrs, p.Addr())
				}
			}
		}
	}
	return addrs, nil
}

func hostPrefix(a netip.Addr) string { return netip.PrefixFrom(a, a.BitLen()).String() }

// AddAddr implements Links; an IPv6 address (a /128) is added without
// duplicate address detection, so it is usable at once.
func (IPCommand) AddAddr(name string, a netip.Addr) error {
	args := []string{"addr", "add", hostPrefix(a), "dev", name}
	if a.Is6() {
		args = append(args, "nodad")
	}
	_, err := ipRun(args...)
	return err
}

// DelAddr implements Links.
func (IPCommand) DelAddr(name string, a netip.Addr) error {
	_, err := ipRun("addr", "del", hostPrefix(a), "dev", name)
	return err
}

// DeleteLink implements Links; a missing link is not an error.
func (IPCommand) DeleteLink(name string) error {
	if _, err := ipRun("link", "show", name); err != nil {
		return nil
	}
	_, err := ipRun("link", "del", name)
	return err
}

// FakeLinks keeps links and addresses in memory; adding an address twice
// or to a missing link, or deleting a missing one, fails as ip does.
type FakeLinks struct {
	mu    sync.Mutex
	Links map[string][]netip.Addr
}

// NewFakeLinks returns a FakeLinks without links.
func NewFakeLinks() *FakeLinks { return &FakeLinks{Links: map[string][]netip.Addr{}} }

// EnsureDummy implements Links.
func (f *FakeLinks) EnsureDummy(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.Links[name]; !ok {
		f.Links[name] = nil
	}
	return nil
}

// Addrs implements Links.
func (f *FakeLinks) Addrs(name string) ([]netip.Addr, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	addrs, ok := f.Links[name]
	if !ok {
		return nil, fmt.Errorf("no link %s", name)
	}
	return slices.Clone(addrs), nil
}

// AddAddr implements Links.
func (f *FakeLinks) AddAddr(name string, a netip.Addr) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	addrs, ok := f.Links[name]
	if !ok || slices.Contains(addrs, a) {
		return fmt.Errorf("add %s to %s: exists or no link", a, name)
	}
	f.Links[name] = append(addrs, a)
	return nil
}

// DelAddr implements Links.
func (f *FakeLinks) DelAddr(name string, a netip.Addr) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	i := slices.Index(f.Links[name], a)
	if i < 0 {
		return fmt.Errorf("del %s from %s: not there", a, name)
	}
	f.Links[name] = slices.Delete(f.Links[name], i, i+1)
	return nil
}

// DeleteLink implements Links.
func (f *FakeLinks) DeleteLink(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.Links, name)
	return nil
}
