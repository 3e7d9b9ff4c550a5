package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/iptables"
)

// withBenchModes adds --mode to `bench proxy`: nftables runs the original
// bench; iptables and userspace run theirs, each in a fresh namespace.
func withBenchModes(cmd *cobra.Command) *cobra.Command {
	var mode, variant string
	var chunk int
	var role string
	nft := cmd.RunE
	cmd.Flags().StringVar(&mode, "mode", "nftables", "Backend to measure: nftables, iptables or userspace.")
	cmd.Flags().StringVar(&variant, "iptables-variant", "", "iptables mode: legacy, nft, or empty for every installed one.")
	cmd.Flags().IntVar(&chunk, "iptables-chunk", -1, "iptables mode: chains per restore (-1: the backend's default for the variant).")
	_ = cmd.Flags().MarkHidden("iptables-chunk")
	cmd.Flags().StringVar(&role, "userspace-role", "", "Internal: a helper process of the userspace bench.")
	_ = cmd.Flags().MarkHidden("userspace-role")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		services, _ := cmd.Flags().GetInt("services")
		endpoints, _ := cmd.Flags().GetInt("endpoints")
		inNetns, _ := cmd.Flags().GetBool("in-netns")
		switch mode {
		case "nftables", "":
			return nft(cmd, args)
		case "iptables":
			if inNetns {
				return benchIPTablesInNetns(cmd.OutOrStdout(), iptables.Variant(variant), services, endpoints, chunk)
			}
			variants := []string{variant}
			if variant == "" {
				variants = installedVariants()
			}
			for _, v := range variants {
				err := reexecInNetns(cmd, "bench", "proxy", "--in-netns", "--mode", "iptables", "--iptables-variant", v,
					"--services", strconv.Itoa(services), "--endpoints", strconv.Itoa(endpoints), "--iptables-chunk", strconv.Itoa(chunk))
				if err != nil {
					return err
				}
			}
			return nil
		case "userspace":
			return benchUserspace(cmd, inNetns)
		}
		return fmt.Errorf("--mode %q: want nftables, iptables or userspace", mode)
	}
	return cmd
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

// reexecInNetns runs this binary with args inside a new network namespace.
func reexecInNetns(cmd *cobra.Command, args ...string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ns := fmt.Sprintf("bk-bench-%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		return fmt.Errorf("ip netns add (needs root): %v: %s", err, out)
	}
	defer exec.Command("ip", "netns", "del", ns).Run()
	child := exec.Command("ip", append([]string{"netns", "exec", ns, self}, args...)...)
	child.Stdout, child.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
	return child.Run()
}

func benchIPTablesInNetns(out io.Writer, v iptables.Variant, services, endpoints, chunk int) error {
	ipt, err := iptables.New(proxy.IPv4, v)
	if err != nil {
		return err
	}
	timedIPT := &restoreTimer{Interface: ipt}
	snap := syntheticSnapshot(services, endpoints, 0) // no node names, as the figures in the iptables README
	p := iptables.NewProxier(iptables.Config{Family: proxy.IPv4}, timedIPT, func() *proxy.Snapshot { return snap }, nil)
	if chunk >= 0 {
		p.ChunkChains = chunk
	}
	var last proxy.SyncResult
	p.OnSynced = func(res proxy.SyncResult, _, _ *proxy.Snapshot, _ error) { last = res }
	timed := func(full bool) (time.Duration, proxy.SyncResult, error) {
		timedIPT.spent = 0
		start := time.Now()
		err := p.SyncProxyRules(full)
		return time.Since(start), last, err
	}
	full, fullRes, err := timed(true)
	if err != nil {
		return err
	}
	changed := proxy.ServicePortName{Namespace: "bench", Name: "svc-0", Port: "http", Protocol: proxy.TCP}
	snap = withChange(snap, changed, func(s *proxy.Snapshot) {
		name := changed
		eps := append([]proxy.Endpoint{}, s.Endpoints[name]...)
		eps[0].IP = addr4(10<<24 | 127<<16 | 1)
		s.Endpoints[name] = eps
	})
	change, changeRes, err := timed(false)
	if err != nil {
		return err
	}
	changeTool := timedIPT.spent
	added := proxy.ServicePortName{Namespace: "bench", Name: "new", Port: "http", Protocol: proxy.TCP}
	snap = withChange(snap, added, func(s *proxy.Snapshot) {
		name := added
		s.Services[name] = &proxy.ServicePort{Name: name, Protocol: proxy.TCP, Port: 80, ClusterIP: addr4(10<<24 | 97<<16 | 1)}
		s.Endpoints[name] = []proxy.Endpoint{{IP: addr4(10<<24 | 127<<16 | 2), Port: 8080, Ready: true, Serving: true}}
	})
	newSvc, newRes, err := timed(false)
	if err != nil {
		return err
	}
	resync, _, err := timed(true)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "services=%d endpoints/service=%d (iptables, %s variant, fresh network namespace)\n", services, endpoints, ipt.Variant())
	fmt.Fprintf(out, "full sync into empty tables: %.3fs (%d chains, %.1f MB restore input)\n", full.Seconds(), fullRes.Changes, float64(fullRes.RestoreBytes)/(1<<20))
	fmt.Fprintf(out, "one endpoint change:         %.1fms (%d chains, %d bytes; %.1fms of it in iptables-restore)\n",
		msOf(change), changeRes.Changes, changeRes.RestoreBytes, msOf(changeTool))
	fmt.Fprintf(out, "one new service:             %.1fms (%d chains, %d bytes)\n", msOf(newSvc), newRes.Changes, newRes.RestoreBytes)
	fmt.Fprintf(out, "full resync over the tables: %.3fs\n", resync.Seconds())
	if rss, err := rssBytes(os.Getpid()); err == nil {
		fmt.Fprintf(out, "RSS: %.1f MB\n", float64(rss)/(1<<20))
	}
	return nil
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

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
