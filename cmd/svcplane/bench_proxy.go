package main

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/nftables"
)

func newBenchProxyCommand() *cobra.Command {
	var services, endpoints, nodes int
	var inNetns bool
	var cpuProfile, memProfile string
	cmd := &cobra.Command{
		Use:   "proxy",
		Short: "Sync a synthetic cluster into the nftables backend in a fresh network namespace; print sync times and RSS",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if services < 1 || endpoints < 1 {
				return fmt.Errorf("--services and --endpoints must be at least 1")
			}
			if inNetns {
				stop, err := startProfiles(cpuProfile, memProfile)
				if err != nil {
					return err
				}
				defer stop()
				return benchProxyInNetns(cmd.OutOrStdout(), services, endpoints, nodes)
			}
			return benchProxyFreshNetns(cmd, services, endpoints, nodes)
		},
	}
	cmd.Flags().IntVar(&services, "services", 5000, "Number of Services (one TCP port each).")
	cmd.Flags().IntVar(&endpoints, "endpoints", 10, "Endpoints per Service.")
	cmd.Flags().IntVar(&nodes, "nodes", 100, "Nodes the endpoints are spread over round-robin; the proxy's node is one of them (1: every endpoint local; 0: no node names).")
	cmd.Flags().BoolVar(&inNetns, "in-netns", false, "Internal: run inside the namespace made for the bench.")
	_ = cmd.Flags().MarkHidden("in-netns")
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "Write a CPU profile of the proxy side to this file (absolute path).")
	cmd.Flags().StringVar(&memProfile, "memprofile", "", "Write a heap profile (after the last sync) to this file (absolute path).")
	return withBenchModes(cmd)
}

// benchProxyFreshNetns re-runs itself inside a new network namespace.
func benchProxyFreshNetns(cmd *cobra.Command, services, endpoints, nodes int) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	ns := fmt.Sprintf("svcplane-bench-%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", ns).CombinedOutput(); err != nil {
		return fmt.Errorf("ip netns add (needs root): %v: %s", err, out)
	}
	defer exec.Command("ip", "netns", "del", ns).Run()
	args := []string{"netns", "exec", ns, self, "bench", "proxy", "--in-netns",
		"--services", strconv.Itoa(services), "--endpoints", strconv.Itoa(endpoints), "--nodes", strconv.Itoa(nodes)}
	for _, f := range []string{"cpuprofile", "memprofile"} {
		if v, _ := cmd.Flags().GetString(f); v != "" {
			args = append(args, "--"+f, v)
		}
	}
	child := exec.Command("ip", args...)
	child.Stdout, child.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
	return child.Run()
}

// syntheticSnapshot: Service i has ClusterIP 10.96.x.y:80 and endpoints
// 10.(128+..).. :8080 spread over the pod range and, round-robin, over
// nodes nodes ("bench", the proxy's own, is node 0; 0 = no node names).
func syntheticSnapshot(services, endpoints, nodes int) *proxy.Snapshot {
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
			if nodes > 0 {
				if k := int(next) % nodes; k == 0 {
					eps[j].NodeName, eps[j].IsLocal = "bench", true
				} else {
					eps[j].NodeName = "node-" + strconv.Itoa(k)
				}
			}
		}
		s.Endpoints[name] = eps
	}
	return s
}

func addr4(v uint32) netip.Addr {
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// withChange copies the maps of s (the snapshot's contract: never mutate)
// and names the changed ports in Changes, as the tracker does.
func withChange(s *proxy.Snapshot, changed proxy.ServicePortName, change func(*proxy.Snapshot)) *proxy.Snapshot {
	c := *s
	c.Changes = &proxy.ChangeSet{Ports: map[proxy.ServicePortName]struct{}{changed: {}}}
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

func benchProxyInNetns(out io.Writer, services, endpoints, nodes int) error {
	nft, err := nftables.NewInterface(proxy.IPv4)
	if err != nil {
		return err
	}
	baseRSS, err := rssBytes(os.Getpid())
	if err != nil {
		return err
	}
	snap := syntheticSnapshot(services, endpoints, nodes)
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
	svc0 := proxy.ServicePortName{Namespace: "bench", Name: "svc-0", Port: "http", Protocol: proxy.TCP}
	snap = withChange(snap, svc0, func(s *proxy.Snapshot) {
		name := svc0
		eps := append([]proxy.Endpoint{}, s.Endpoints[name]...)
		eps[0].IP = addr4(10<<24 | 127<<16 | 1)
		s.Endpoints[name] = eps
	})
	change, err := timed(false)
	if err != nil {
		return err
	}
	newName := proxy.ServicePortName{Namespace: "bench", Name: "new", Port: "http", Protocol: proxy.TCP}
	snap = withChange(snap, newName, func(s *proxy.Snapshot) {
		name := newName
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
	fmt.Fprintf(out, "services=%d endpoints/service=%d nodes=%d (nftables, fresh network namespace)\n", services, endpoints, nodes)
	fmt.Fprintf(out, "full sync into empty table: %.3fs\n", full.Seconds())
	fmt.Fprintf(out, "one endpoint change:        %.1fms\n", float64(change.Microseconds())/1000)
	fmt.Fprintf(out, "one new service:            %.1fms\n", float64(newSvc.Microseconds())/1000)
	fmt.Fprintf(out, "full resync over the table: %.3fs\n", resync.Seconds())
	fmt.Fprintf(out, "RSS: %.1f MB (%.1f MB before building the snapshot; %s)\n", float64(rss)/(1<<20), float64(baseRSS)/(1<<20), rssDetail())
	return nil
}

// startProfiles starts a CPU profile and arranges a heap profile; stop
// ends and writes them.
func startProfiles(cpu, mem string) (stop func(), err error) {
	var cpuFile *os.File
	if cpu != "" {
		if cpuFile, err = os.Create(cpu); err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(cpuFile); err != nil {
			return nil, err
		}
	}
	return func() {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			_ = cpuFile.Close()
		}
		if mem != "" {
			if f, err := os.Create(mem); err == nil {
				_ = pprof.WriteHeapProfile(f)
				_ = f.Close()
			}
		}
	}, nil
}

// rssDetail renders RssAnon, RssFile and the peak (VmHWM) of this process.
func rssDetail() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return err.Error()
	}
	var parts []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "RssAnon:") || strings.HasPrefix(l, "RssFile:") || strings.HasPrefix(l, "VmHWM:") {
			parts = append(parts, strings.Join(strings.Fields(l), " "))
		}
	}
	return strings.Join(parts, ", ")
}
