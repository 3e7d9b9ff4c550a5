package bench

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	mdns "github.com/miekg/dns"
	"k8s.io/client-go/kubernetes"
)

// DNSConfig is `svcplane bench dns`'s settings.
type DNSConfig struct {
	Services, Endpoints int
	// Duration of each load step.
	Duration time.Duration
	// Concurrency steps: closed-loop clients per step.
	Concurrency []int
	// CoreDNS, when set, is a coredns binary run side by side (cache off,
	// then on).
	CoreDNS string
}

// dnsTarget is one DNS server process under test.
type dnsTarget struct {
	name    string
	addr    string
	proc    *exec.Cmd
	idleRSS int64
	// idleAnon is the anonymous part of idleRSS (the rest are the
	// binary's file pages, shared and reclaimable).
	idleAnon int64
}

// DNS fills a fresh `svcplane server` with cfg.Services ClusterIP Services
// of cfg.Endpoints endpoints each, starts `svcplane dns` (and CoreDNS with
// its kubernetes plugin, cache off and on, when cfg.CoreDNS is set) on
// loopback, and for each prints, per closed-loop concurrency step, the
// queries/s and latency percentiles of A questions for random Services,
// the best queries/s with p99 ≤ 1 ms, and the process's RSS.
func DNS(out, progressOut io.Writer, cfg DNSConfig) error {
	p := startProgress(progressOut)
	defer p.stop()
	b, err := startServer()
	if err != nil {
		return err
	}
	defer b.stop()
	client, err := b.fastClient()
	if err != nil {
		return err
	}
	p.phase(fmt.Sprintf("creating %d Services × %d endpoints", cfg.Services, cfg.Endpoints), nil)
	if err := fillDNSServices(client, cfg.Services, cfg.Endpoints); err != nil {
		return err
	}
	kubeconfig := filepath.Join(b.dir, "kubeconfig")
	fmt.Fprintf(out, "%d Services × %d endpoints; A questions for random Services over UDP on loopback, %s per step\n",
		cfg.Services, cfg.Endpoints, cfg.Duration)
	targets := []func() (*dnsTarget, error){func() (*dnsTarget, error) { return startSvcplaneDNS(kubeconfig) }}
	if cfg.CoreDNS != "" {
		for _, cache := range []bool{false, true} {
			targets = append(targets, func() (*dnsTarget, error) { return startCoreDNS(cfg.CoreDNS, kubeconfig, cache) })
		}
	}
	for _, start := range targets {
		t, err := start()
		if err != nil {
			return err
		}
		err = loadDNS(out, p, t, cfg)
		_ = t.proc.Process.Signal(syscall.SIGTERM)
		_ = t.proc.Wait()
		if err != nil {
			return err
		}
	}
	return nil
}

// fillDNSServices creates n selectorless Services in namespace bench, each
// with one EndpointSlice of eps ready endpoints.
func fillDNSServices(client kubernetes.Interface, n, eps int) error {
	return fillBenchServices(client, "bench", n, eps, 0)
}

// freeAddr is a free loopback address:port (UDP and TCP).
func freeAddr() (string, error) {
	for range 20 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return "", err
		}
		addr := l.Addr().String()
		l.Close()
		if pc, err := net.ListenPacket("udp", addr); err == nil {
			pc.Close()
			return addr, nil
		}
	}
	return "", fmt.Errorf("no free loopback port for UDP and TCP")
}

// freeAddrPair is a DNS address and a /ready address, both free.
func freeAddrPair() (dns, ready string, err error) {
	if dns, err = freeAddr(); err == nil {
		ready, err = freeAddr()
	}
	return dns, ready, err
}

func startSvcplaneDNS(kubeconfig string) (*dnsTarget, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	addr, ready, err := freeAddrPair()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "dns", "--kubeconfig", kubeconfig, "--dns-bind-address", addr, "--dns-forward", "none",
		"--dns-health-address", "", "--dns-metrics-address", "", "--dns-ready-address", ready)
	return startDNSProcess("svcplane dns", cmd, addr, ready)
}

// startCoreDNS runs coredns with kubeadm's kubernetes block (pods
// insecure, TTL 5 s), and a 30 s cache when cache is set.
func startCoreDNS(bin, kubeconfig string, cache bool) (*dnsTarget, error) {
	addr, ready, err := freeAddrPair()
	if err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(addr)
	cacheLine, name := "", "CoreDNS (cache off)"
	if cache {
		cacheLine, name = "cache 30", "CoreDNS (cache 30)"
	}
	corefile := fmt.Sprintf(`.:%s {
    bind %s
    errors
    ready %s
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig %s
        pods insecure
        ttl 5
    }
    %s
}
`, port, host, ready, kubeconfig, cacheLine)
	f, err := os.CreateTemp("", "svcplane-bench-Corefile-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(corefile); err != nil {
		return nil, err
	}
	f.Close()
	cmd := exec.Command(bin, "-conf", f.Name())
	t, err := startDNSProcess(name, cmd, addr, ready)
	return t, err
}

// startDNSProcess starts cmd and waits for its /ready.
func startDNSProcess(name string, cmd *exec.Cmd, addr, ready string) (*dnsTarget, error) {
	logf, err := os.CreateTemp("", "svcplane-bench-dns-*.log")
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://" + ready + "/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				os.Remove(logf.Name())
				return &dnsTarget{name: name, addr: addr, proc: cmd}, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return nil, fmt.Errorf("%s not ready within 60 s (log: %s)", name, logf.Name())
}

// loadDNS runs the concurrency steps against t and prints each.
func loadDNS(out io.Writer, p *progress, t *dnsTarget, cfg DNSConfig) error {
	fmt.Fprintf(out, "%s:\n", t.name)
	time.Sleep(2 * time.Second) // settle after the initial list
	t.idleRSS, _ = rssBytes(t.proc.Process.Pid)
	t.idleAnon, _ = statusBytes(t.proc.Process.Pid, "RssAnon")
	best := 0.0
	for _, c := range cfg.Concurrency {
		p.phase(fmt.Sprintf("%s, %d clients", t.name, c), nil)
		st, err := dnsStep(t.addr, c, cfg.Services, cfg.Duration)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "  %3d clients: %8.0f q/s  p50 %.3f ms  p99 %.3f ms  lost %d\n", c, st.qps, st.p50, st.p99, st.lost)
		if st.p99 <= 1 && st.lost == 0 {
			best = max(best, st.qps)
		}
	}
	rss, _ := rssBytes(t.proc.Process.Pid)
	anon, _ := statusBytes(t.proc.Process.Pid, "RssAnon")
	mb := func(b int64) float64 { return float64(b) / (1 << 20) }
	fmt.Fprintf(out, "  best with p99 ≤ 1 ms: %.0f q/s; RSS idle before the load %.1f MB (anonymous %.1f MB), after it %.1f MB (anonymous %.1f MB); the rest are the binary's file pages\n",
		best, mb(t.idleRSS), mb(t.idleAnon), mb(rss), mb(anon))
	return nil
}

type dnsStats struct {
	qps, p50, p99 float64
	lost          int
}

// dnsStep runs c closed-loop UDP clients asking random Services' A
// records for d. The questions are packed once (only the ID changes) and
// an answer is checked from its header (same ID, NOERROR, one answer), so
// the clients spend as little of the shared CPU as they can.
func dnsStep(addr string, c, services int, d time.Duration) (dnsStats, error) {
	pkts := make([][]byte, services)
	for i := range pkts {
		q := new(mdns.Msg)
		q.SetQuestion(fmt.Sprintf("svc-%d.bench.svc.cluster.local.", i), mdns.TypeA)
		q.RecursionDesired = true
		var err error
		if pkts[i], err = q.Pack(); err != nil {
			return dnsStats{}, err
		}
	}
	var mu sync.Mutex
	var lat []time.Duration
	lost := 0
	var firstErr error
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	for w := range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("udp", addr)
			if err != nil {
				mu.Lock()
				firstErr = err
				mu.Unlock()
				return
			}
			defer conn.Close()
			mine := make([]time.Duration, 0, 1<<16)
			myLost := 0
			buf := make([]byte, 4096)
			pkt := make([]byte, 512)
			for i := w; time.Now().Before(stop); i += c {
				q := pkts[(i*7919)%services]
				pkt = append(pkt[:0], q...)
				id := uint16(i)
				pkt[0], pkt[1] = byte(id>>8), byte(id)
				t0 := time.Now()
				_ = conn.SetDeadline(t0.Add(time.Second))
				if _, err := conn.Write(pkt); err != nil {
					myLost++
					continue
				}
				n, err := conn.Read(buf)
				for err == nil && n >= 2 && (buf[0] != pkt[0] || buf[1] != pkt[1]) {
					n, err = conn.Read(buf) // a late answer to a question counted lost
				}
				if err != nil {
					myLost++
					continue
				}
				mine = append(mine, time.Since(t0))
				// rcode (low 4 bits of byte 3) NOERROR, ANCOUNT 1.
				if n < 12 || buf[3]&0x0f != 0 || buf[6] != 0 || buf[7] != 1 {
					mu.Lock()
					if firstErr == nil {
						resp := new(mdns.Msg)
						_ = resp.Unpack(buf[:n])
						firstErr = fmt.Errorf("%s: bad answer: %v", addr, resp)
					}
					mu.Unlock()
					return
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			lost += myLost
			mu.Unlock()
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return dnsStats{}, firstErr
	}
	slices.Sort(lat)
	return dnsStats{qps: float64(len(lat)) / d.Seconds(), p50: pct(lat, 50) * 1000, p99: pct(lat, 99) * 1000, lost: lost}, nil
}
