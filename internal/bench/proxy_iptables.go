package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/iptables"
	"github.com/svcplane/svcplane/internal/proxy/proxytest/synthetic"
)

// iptablesBench runs the iptables bench for cfg's variant (every
// installed one when empty), each in a fresh namespace.
func iptablesBench(out, errOut io.Writer, cfg ProxyConfig) error {
	if cfg.InNetns {
		return iptablesInNetns(out, errOut, iptables.Variant(cfg.IPTablesVariant), cfg.Services, cfg.Endpoints, cfg.IPTablesChunk)
	}
	variants := []string{cfg.IPTablesVariant}
	if cfg.IPTablesVariant == "" {
		variants = installedVariants()
	}
	for _, v := range variants {
		err := inFreshNetns(out, errOut, "bench", "proxy", "--in-netns", "--mode", "iptables", "--iptables-variant", v,
			"--services", strconv.Itoa(cfg.Services), "--endpoints", strconv.Itoa(cfg.Endpoints), "--iptables-chunk", strconv.Itoa(cfg.IPTablesChunk))
		if err != nil {
			return err
		}
	}
	return nil
}

func installedVariants() []string {
	var out []string
	for _, v := range []string{"legacy", "nft"} {
		if _, err := exec.LookPath("iptables-" + v + "-restore"); err == nil {
			out = append(out, v)
		}
	}
	return out
}

func iptablesInNetns(out, progressOut io.Writer, v iptables.Variant, services, endpoints, chunk int) error {
	ipt, err := iptables.New(proxy.IPv4, v)
	if err != nil {
		return err
	}
	timedIPT := &restoreTimer{Interface: ipt}
	snap := synthetic.Snapshot(services, endpoints, 0) // no node names, as the figures in the iptables README
	p := iptables.NewProxier(iptables.Config{Family: proxy.IPv4}, timedIPT, func() *proxy.Snapshot { return snap }, nil)
	if chunk >= 0 {
		p.ChunkChains = chunk
	}
	var last proxy.SyncResult
	p.OnSynced = func(res proxy.SyncResult, _, _ *proxy.Snapshot, _ error) { last = res }
	var changeTool time.Duration
	prog := startProgress(progressOut)
	defer prog.stop()
	t, err := timeSyncs(prog, p, &snap, &last, func(step int) {
		if step == 1 {
			changeTool = timedIPT.spent // the endpoint change's restores
		}
		timedIPT.spent = 0
	})
	if err != nil {
		return err
	}
	full, change, newSvc := t.results[0], t.results[1], t.results[2]
	fmt.Fprintf(out, "services=%d endpoints/service=%d (iptables, %s variant, fresh network namespace)\n", services, endpoints, ipt.Variant())
	fmt.Fprintf(out, "full sync into empty tables: %.3fs (%d chains, %.1f MB restore input)\n", t.full.Seconds(), full.Changes, float64(full.RestoreBytes)/(1<<20))
	fmt.Fprintf(out, "one endpoint change:         %.1fms (%d chains, %d bytes; %.1fms of it in iptables-restore)\n",
		ms(t.change), change.Changes, change.RestoreBytes, ms(changeTool))
	fmt.Fprintf(out, "one new service:             %.1fms (%d chains, %d bytes)\n", ms(t.newSvc), newSvc.Changes, newSvc.RestoreBytes)
	fmt.Fprintf(out, "full resync over the tables: %.3fs\n", t.resync.Seconds())
	if rss, err := rssBytes(os.Getpid()); err == nil {
		fmt.Fprintf(out, "RSS: %.1f MB\n", float64(rss)/(1<<20))
	}
	return nil
}

// restoreTimer adds up the time spent in the iptables tools' restores.
type restoreTimer struct {
	iptables.Interface
	spent time.Duration
}

func (r *restoreTimer) Restore(ctx context.Context, data []byte) error {
	start := time.Now()
	err := r.Interface.Restore(ctx, data)
	r.spent += time.Since(start)
	return err
}
