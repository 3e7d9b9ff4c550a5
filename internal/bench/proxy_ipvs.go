package bench

import (
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/iptables"
	"github.com/svcplane/svcplane/internal/proxy/ipvs"
	"github.com/svcplane/svcplane/internal/proxy/proxytest/synthetic"
)

// ipvsBench syncs the synthetic cluster through the IPVS backend in a
// fresh network namespace: kube-ipvs0 and its addresses over rtnetlink and
// the iptables rules (iptables-nft, or cfg's variant) are the kernel's;
// the virtual servers and ipsets are the Fakes' (this machine has no IPVS
// module and no ipset tool), so their kernel cost is not in the figures.
func ipvsBench(out, errOut io.Writer, cfg ProxyConfig) error {
	if cfg.Services < 1 || cfg.Endpoints < 1 {
		return fmt.Errorf("--services and --endpoints must be at least 1")
	}
	if !cfg.InNetns {
		return inFreshNetns(out, errOut, "bench", "proxy", "--in-netns", "--mode", "ipvs",
			"--services", strconv.Itoa(cfg.Services), "--endpoints", strconv.Itoa(cfg.Endpoints), "--nodes", strconv.Itoa(cfg.Nodes),
			"--iptables-variant", cfg.IPTablesVariant)
	}
	ipt, err := iptables.New(proxy.IPv4, iptables.Variant(cfg.IPTablesVariant))
	if err != nil {
		return err
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
	fmt.Fprintf(out, "services=%d endpoints/service=%d nodes=%d (ipvs; fresh network namespace: kube-ipvs0 over rtnetlink and iptables-%s real, virtual servers and ipsets in the Fakes, no IPVS module here)\n",
		cfg.Services, cfg.Endpoints, cfg.Nodes, ipt.Variant())
	fmt.Fprintf(out, "full sync into empty state: %.3fs (%d addresses on %s)\n", t.full.Seconds(), len(addrs), ipvs.DummyInterface)
	fmt.Fprintf(out, "one endpoint change:        %.1fms\n", ms(t.change))
	fmt.Fprintf(out, "one new service:            %.1fms\n", ms(t.newSvc))
	fmt.Fprintf(out, "full resync:                %.3fs\n", t.resync.Seconds())
	if rss, err := rssBytes(os.Getpid()); err == nil {
		fmt.Fprintf(out, "RSS: %.1f MB (%s)\n", mb(rss), rssDetail())
	}
	return nil
}
