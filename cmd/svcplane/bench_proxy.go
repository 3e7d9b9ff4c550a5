package main

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/nftables"
)

func newBenchProxyCommand() *cobra.Command {
	var services, endpoints int
	var inNetns bool
	cmd := &cobra.Command{
		Use:   "proxy",
		Short: "Sync a synthetic cluster into the nftables backend in a fresh network namespace; print sync times and RSS",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if inNetns {
				return benchProxyInNetns(cmd.OutOrStdout(), services, endpoints)
			}
			return benchProxyFreshNetns(cmd, services, endpoints)
		},
	}
	cmd.Flags().IntVar(&services, "services", 5000, "Number of Services (one TCP port each).")
	cmd.Flags().IntVar(&endpoints, "endpoints", 10, "Endpoints per Service.")
	cmd.Flags().BoolVar(&inNetns, "in-netns", false, "Internal: run inside the namespace made for the bench.")
	_ = cmd.Flags().MarkHidden("in-netns")
	return withBenchModes(cmd)
}

// benchProxyFreshNetns re-runs itself inside a new network namespace.
func benchProxyFreshNetns(cmd *cobra.Command, services, endpoints int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ns := fmt.Sprintf("svcplane-bench-%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		return fmt.Errorf("ip netns add (needs root): %v: %s", err, out)
	}
	defer exec.Command("ip", "netns", "del", ns).Run()
	child := exec.Command("ip", "netns", "exec", ns, self, "bench", "proxy", "--in-netns",
		"--services", strconv.Itoa(services), "--endpoints", strconv.Itoa(endpoints))
	child.Stdout, child.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
	return child.Run()
}

// syntheticSnapshot: Service i has ClusterIP 10.96.x.y:80 and endpoints
// 10.(128+..).. :8080 spread over the pod range.
func syntheticSnapshot(services, endpoints int) *proxy.Snapshot {
	s := &proxy.Snapshot{Family: proxy.IPv4, Services: map[proxy.ServicePortName]*proxy.ServicePort{},
		Endpoints: map[proxy.ServicePortName][]proxy.Endpoint{}, Node: proxy.Node{Name: "bench"}}
	next := uint32(10<<24 | 128<<16)
	for i := 0; i < services; i++ {
		name := proxy.ServicePortName{Namespace: "bench", Name: "svc-" + strconv.Itoa(i), Port: "http", Protocol: proxy.TCP}
		s.Services[name] = &proxy.ServicePort{Name: name, Protocol: proxy.TCP, Port: 80, ClusterIP: addr4(10<<24 | 96<<16 | uint32(i+1))}
		eps := make([]proxy.Endpoint, endpoints)
		for j := range eps {
			next++
			eps[j] = proxy.Endpoint{IP: addr4(next), Port: 8080, Ready: true, Serving: true}
		}
		s.Endpoints[name] = eps
	}
	return s
}

func addr4(v uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// withChange copies the maps of s (the snapshot's contract: never mutate).
func withChange(s *proxy.Snapshot, change func(*proxy.Snapshot)) *proxy.Snapshot {
	c := *s
	c.Services = make(map[proxy.ServicePortName]*proxy.ServicePort, len(s.Services)+1)
	c.Endpoints = make(map[proxy.ServicePortName][]proxy.Endpoint, len(s.Endpoints)+1)
	for k, v := range s.Services {
		c.Services[k] = v
	}
	for k, v := range s.Endpoints {
		c.Endpoints[k] = v
	}
	change(&c)
	return &c
}

func benchProxyInNetns(out io.Writer, services, endpoints int) error {
	nft, err := nftables.NewInterface(proxy.IPv4)
	if err != nil {
		return err
	}
	snap := syntheticSnapshot(services, endpoints)
	p := nftables.NewProxier(nftables.Config{Family: proxy.IPv4}, nft, func() *proxy.Snapshot { return snap })
	timed := func(full bool) (time.Duration, error) {
		start := time.Now()
		err := p.SyncProxyRules(full)
		return time.Since(start), err
	}
	full, err := timed(true)
	if err != nil {
		return err
	}
	snap = withChange(snap, func(s *proxy.Snapshot) {
		name := proxy.ServicePortName{Namespace: "bench", Name: "svc-0", Port: "http", Protocol: proxy.TCP}
		eps := append([]proxy.Endpoint{}, s.Endpoints[name]...)
		eps[0].IP = addr4(10<<24 | 127<<16 | 1)
		s.Endpoints[name] = eps
	})
	change, err := timed(false)
	if err != nil {
		return err
	}
	snap = withChange(snap, func(s *proxy.Snapshot) {
		name := proxy.ServicePortName{Namespace: "bench", Name: "new", Port: "http", Protocol: proxy.TCP}
		s.Services[name] = &proxy.ServicePort{Name: name, Protocol: proxy.TCP, Port: 80, ClusterIP: addr4(10<<24 | 97<<16 | 1)}
		s.Endpoints[name] = []proxy.Endpoint{{IP: addr4(10<<24 | 127<<16 | 2), Port: 8080, Ready: true, Serving: true}}
	})
	newSvc, err := timed(false)
	if err != nil {
		return err
	}
	resync, err := timed(true)
	if err != nil {
		return err
	}
	rss, err := rssBytes(os.Getpid())
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "services=%d endpoints/service=%d (nftables, fresh network namespace)\n", services, endpoints)
	fmt.Fprintf(out, "full sync into empty table: %.3fs\n", full.Seconds())
	fmt.Fprintf(out, "one endpoint change:        %.1fms\n", float64(change.Microseconds())/1000)
	fmt.Fprintf(out, "one new service:            %.1fms\n", float64(newSvc.Microseconds())/1000)
	fmt.Fprintf(out, "full resync over the table: %.3fs\n", resync.Seconds())
	fmt.Fprintf(out, "RSS: %.1f MB\n", float64(rss)/(1<<20))
	return nil
}
