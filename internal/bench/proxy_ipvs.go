package bench

import (
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/iptables"
	"github.com/svcplane/svcplane/internal/proxy/ipvs"
	"github.com/svcplane/svcplane/internal/proxy/proxytest/synthetic"
)

// ipvsBench syncs the synthetic cluster through the IPVS backend in a
// fresh network namespace: kube-ipvs0 and its addresses over rtnetlink
// are the kernel's; the virtual servers, ipsets and the (few, fixed)
// iptables rules that match the ipsets are the Fakes' (this machine has
// no IPVS module and no ipset tool, and iptables cannot refer to sets
// that do not exist), so their kernel cost is not in the figures.
func ipvsBench(out, errOut io.Writer, cfg ProxyConfig) error {
	if cfg.Services < 1 || cfg.Endpoints < 1 {
		return fmt.Errorf("--services and --endpoints must be at least 1")
	}
	if !cfg.InNetns {
		args := append([]string{"bench", "proxy", "--mode", "ipvs"}, cfg.nftablesChildArgs()[2:]...)
		return inFreshNetns(out, errOut, args...)
	}
	stop, err := startProfiles(cfg.CPUProfile, cfg.MemProfile)
	if err != nil {
		return err
	}
	defer stop()
	ipt := iptables.NewFake()
	link := "dummy"
	if err := (ipvs.NetlinkLinks{}).EnsureDummy(ipvs.DummyInterface); err != nil {
		// Kernels without the dummy driver (this bench machine's): a veth
		// of that name takes the addresses the same way over rtnetlink.
		if b, err := exec.Command("ip", "link", "add", ipvs.DummyInterface, "type", "veth", "peer", "name", "kube-ipvs0-peer").CombinedOutput(); err != nil {
			return fmt.Errorf("neither a dummy nor a veth %s: %v: %s", ipvs.DummyInterface, err, b)
		}
		link = "veth (no dummy driver in this kernel)"
	}
	handle := ipvs.NewFakeHandle()
	snap := synthetic.Snapshot(cfg.Services, cfg.Endpoints, cfg.Nodes)
	p, err := ipvs.NewProxier(ipvs.Config{Family: proxy.IPv4}, handle, ipvs.NewFakeIPSet(), ipvs.NetlinkLinks{}, ipt,
		func() *proxy.Snapshot { return snap }, nil)
	if err != nil {
		return err
	}
	var last proxy.SyncResult
	p.OnSynced = func(res proxy.SyncResult, _, _ *proxy.Snapshot, _ error) { last = res }
	prog := startProgress(errOut)
	defer prog.stop()
	t, err := timeSyncs(prog, p, &snap, &last, nil)
	if err != nil {
		return err
	}
	addrs, err := ipvs.NetlinkLinks{}.Addrs(ipvs.DummyInterface)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "services=%d endpoints/service=%d nodes=%d (ipvs; fresh network namespace: kube-ipvs0 addresses over rtnetlink real; virtual servers, ipsets and iptables in the Fakes: no IPVS module or ipset tool here)\n",
		cfg.Services, cfg.Endpoints, cfg.Nodes)
	fmt.Fprintf(out, "full sync into empty state: %.3fs (%d addresses on %s, a %s)\n", t.full.Seconds(), len(addrs), ipvs.DummyInterface, link)
	fmt.Fprintf(out, "one endpoint change:        %.1fms\n", ms(t.change))
	fmt.Fprintf(out, "one new service:            %.1fms\n", ms(t.newSvc))
	fmt.Fprintf(out, "full resync:                %.3fs\n", t.resync.Seconds())
	if rss, err := rssBytes(os.Getpid()); err == nil {
		fmt.Fprintf(out, "RSS: %.1f MB (%s)\n", mb(rss), rssDetail())
	}
	return nil
}
