package bench

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/nftables"
	"github.com/svcplane/svcplane/internal/proxy/proxytest/synthetic"
)

// ProxyConfig is `svcplane bench proxy`'s settings.
type ProxyConfig struct {
	// Mode is the backend to measure: nftables (also ""), iptables, ipvs
	// or userspace.
	Mode string
	// Services (one TCP port each), Endpoints per Service, and Nodes the
	// endpoints are spread over round-robin (synthetic.Synthetic).
	Services, Endpoints, Nodes int
	// InNetns: this process is the child inside the bench's namespace.
	InNetns bool
	// CPUProfile and MemProfile (nftables): profiles of the proxy side.
	CPUProfile, MemProfile string
	// IPTablesVariant: legacy, nft, or "" for every installed one.
	IPTablesVariant string
	// IPTablesChunk: chains per restore (-1: the backend's default).
	IPTablesChunk int
	// UserspaceRole: this process is a helper of the userspace bench
	// (servers, push, rtt).
	UserspaceRole string
	// Real: run `svcplane proxy --config` processes against a fresh
	// `svcplane server` (proxy_real.go) for each of Mode's comma-separated
	// modes, instead of syncing a synthetic snapshot in this process.
	Real bool
	// HeapProfileDir (Real): save each proxy's heap profile after its
	// full sync here.
	HeapProfileDir string
	// CPUProfileDir (Real): save each proxy's CPU profile over its
	// changes here.
	CPUProfileDir string
	// Repeat (Real): how often the endpoint change and the new Service
	// are measured (the figure is the median).
	Repeat int
	// KeepLog (Real): keep the proxies' logs.
	KeepLog bool
	// ProxyArgs (Real): extra flags of `svcplane proxy`.
	ProxyArgs []string
}

// Proxy runs the bench of cfg.Mode, each in a fresh network namespace.
func Proxy(out, errOut io.Writer, cfg ProxyConfig) error {
	if cfg.Real {
		return realProxyBench(out, errOut, cfg)
	}
	switch cfg.Mode {
	case "nftables", "":
		if cfg.Services < 1 || cfg.Endpoints < 1 {
			return fmt.Errorf("--services and --endpoints must be at least 1")
		}
		if !cfg.InNetns {
			return inFreshNetns(out, errOut, cfg.nftablesChildArgs()...)
		}
		stop, err := startProfiles(cfg.CPUProfile, cfg.MemProfile)
		if err != nil {
			return err
		}
		defer stop()
		return nftablesInNetns(out, errOut, cfg.Services, cfg.Endpoints, cfg.Nodes)
	case "iptables":
		return iptablesBench(out, errOut, cfg)
	case "userspace":
		return userspaceBench(out, errOut, cfg)
	case "ipvs":
		return ipvsBench(out, errOut, cfg)
	}
	return fmt.Errorf("--mode %q: want nftables, iptables, ipvs or userspace", cfg.Mode)
}

func (cfg ProxyConfig) nftablesChildArgs() []string {
	args := []string{"bench", "proxy", "--in-netns",
		"--services", strconv.Itoa(cfg.Services), "--endpoints", strconv.Itoa(cfg.Endpoints), "--nodes", strconv.Itoa(cfg.Nodes)}
	if cfg.CPUProfile != "" {
		args = append(args, "--cpuprofile", cfg.CPUProfile)
	}
	if cfg.MemProfile != "" {
		args = append(args, "--memprofile", cfg.MemProfile)
	}
	return args
}

// syncTimes are the four syncs every rules bench times.
type syncTimes struct {
	full, change, newSvc, resync time.Duration
	// results of each sync, in the same order.
	results [4]proxy.SyncResult
}

// timeSyncs times a full sync of snap, one endpoint change, one new
// Service and a full resync through b; *snap is what b's state returns.
// after, when set, runs after each sync with its index. prog names the
// sync under way.
func timeSyncs(prog *progress, b proxy.Backend, snap **proxy.Snapshot, last *proxy.SyncResult, after func(step int)) (syncTimes, error) {
	var t syncTimes
	steps := []struct {
		name   string
		full   bool
		change func(*proxy.Snapshot) *proxy.Snapshot
		into   *time.Duration
	}{
		{"full sync into empty tables", true, nil, &t.full},
		{"one endpoint change", false, func(s *proxy.Snapshot) *proxy.Snapshot {
			return synthetic.MoveFirstEndpoint(s, synthetic.Name("svc-0"))
		}, &t.change},
		{"one new service", false, synthetic.AddService, &t.newSvc},
		{"full resync", true, nil, &t.resync},
	}
	for i, s := range steps {
		prog.phase(s.name, nil)
		if s.change != nil {
			*snap = s.change(*snap)
		}
		start := time.Now()
		if err := b.SyncProxyRules(s.full); err != nil {
			return t, err
		}
		*s.into = time.Since(start)
		t.results[i] = *last
		if after != nil {
			after(i)
		}
	}
	return t, nil
}

func nftablesInNetns(out, progressOut io.Writer, services, endpoints, nodes int) error {
	nft, err := nftables.NewInterface(proxy.IPv4)
	if err != nil {
		return err
	}
	baseRSS, err := rssBytes(os.Getpid())
	if err != nil {
		return err
	}
	snap := synthetic.Snapshot(services, endpoints, nodes)
	p := nftables.NewProxier(nftables.Config{Family: proxy.IPv4}, nft, func() *proxy.Snapshot { return snap })
	var last proxy.SyncResult
	p.OnSynced = func(res proxy.SyncResult, _, _ *proxy.Snapshot, _ error) { last = res }
	prog := startProgress(progressOut)
	defer prog.stop()
	t, err := timeSyncs(prog, p, &snap, &last, nil)
	if err != nil {
		return err
	}
	rss, err := rssBytes(os.Getpid())
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "services=%d endpoints/service=%d nodes=%d (nftables, fresh network namespace)\n", services, endpoints, nodes)
	fmt.Fprintf(out, "full sync into empty table: %.3fs\n", t.full.Seconds())
	fmt.Fprintf(out, "one endpoint change:        %.1fms\n", ms(t.change))
	fmt.Fprintf(out, "one new service:            %.1fms\n", ms(t.newSvc))
	fmt.Fprintf(out, "full resync over the table: %.3fs\n", t.resync.Seconds())
	fmt.Fprintf(out, "RSS: %.1f MB (%.1f MB before building the snapshot; %s)\n", float64(rss)/(1<<20), float64(baseRSS)/(1<<20), rssDetail())
	return nil
}
