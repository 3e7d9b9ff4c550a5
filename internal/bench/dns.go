package bench

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
	// CoreDNS, when set, is a coredns binary run side by side (cache off
	// and cache 30).
	CoreDNS string
	// Echo adds a UDP echo process that does no DNS work: the most the
	// client can drive on this machine, the floor under every server.
	Echo bool
	// CPUProfile, when set, is where `svcplane dns` writes a CPU profile
	// of the whole run (absolute path).
	CPUProfile string
	// MemProfile, when set, is where `svcplane dns` writes a heap profile
	// as it ends (absolute path).
	MemProfile string
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
	// best is the highest q/s with p99 ≤ 1 ms and nothing lost.
	best float64
	// queries answered and CPU seconds the process used over all steps.
	queries int
	cpu     float64
}

// DNS fills a fresh `svcplane server` with cfg.Services ClusterIP Services
// of cfg.Endpoints endpoints each, starts `svcplane dns` (and CoreDNS with
// its kubernetes plugin, cache off and on, when cfg.CoreDNS is set; and
// the echo floor with cfg.Echo) on loopback, all at once, and runs each
// closed-loop concurrency step against each in turn (interleaved, so a
// noisy neighbour hits all alike) with the same client. It prints per step
// and target the queries/s, latency percentiles and the CPU seconds the
// server process used per 100,000 answers (from /proc/<pid>/stat: the
// server's own cost, whatever share of the cores the client takes), then
// per target the best queries/s with p99 ≤ 1 ms and the process's RSS.
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
	fmt.Fprintf(out, "%d Services × %d endpoints; A questions for random Services over UDP on loopback, %s per step; the servers run side by side and each step visits them in turn with the same client\n",
		cfg.Services, cfg.Endpoints, cfg.Duration)
	starts := []func() (*dnsTarget, error){func() (*dnsTarget, error) { return startSvcplaneDNS(kubeconfig, cfg.CPUProfile, cfg.MemProfile) }}
	if cfg.CoreDNS != "" {
		for _, cache := range []bool{false, true} {
			starts = append(starts, func() (*dnsTarget, error) { return startCoreDNS(cfg.CoreDNS, kubeconfig, cache) })
		}
	}
	if cfg.Echo {
		starts = append(starts, startDNSEcho)
	}
	var targets []*dnsTarget
	defer func() {
		for _, t := range targets {
			_ = t.proc.Process.Signal(syscall.SIGTERM)
			_ = t.proc.Wait()
		}
	}()
	for _, start := range starts {
		p.phase(fmt.Sprintf("starting DNS server %d of %d", len(targets)+1, len(starts)), nil)
		t, err := start()
		if err != nil {
			return err
		}
		targets = append(targets, t)
	}
	time.Sleep(2 * time.Second) // settle after the initial lists
	for _, t := range targets {
		t.idleRSS, _ = rssBytes(t.proc.Process.Pid)
		t.idleAnon, _ = statusBytes(t.proc.Process.Pid, "RssAnon")
	}
	fmt.Fprintf(out, "%7s  %-22s %9s %8s %8s %5s %14s\n", "clients", "server", "q/s", "p50 ms", "p99 ms", "lost", "CPU s/100k q")
	for _, c := range cfg.Concurrency {
		for _, t := range targets {
			p.phase(fmt.Sprintf("%s, %d clients", t.name, c), nil)
			cpu0, err := cpuSeconds(t.proc.Process.Pid)
			if err != nil {
				return err
			}
			st, err := dnsStep(t.addr, c, cfg.Services, cfg.Duration)
			if err != nil {
				return fmt.Errorf("%s: %w", t.name, err)
			}
			cpu1, err := cpuSeconds(t.proc.Process.Pid)
			if err != nil {
				return err
			}
			t.queries += st.answered
			t.cpu += cpu1 - cpu0
			fmt.Fprintf(out, "%7d  %-22s %9.0f %8.3f %8.3f %5d %14.2f\n", c, t.name, st.qps, st.p50, st.p99, st.lost, per100k(cpu1-cpu0, st.answered))
			if st.p99 <= 1 && st.lost == 0 {
				t.best = max(t.best, st.qps)
			}
		}
	}
	mb := func(b int64) float64 { return float64(b) / (1 << 20) }
	fmt.Fprintf(out, "summary (RSS: anonymous memory, idle before the load / after it; the rest are the binary's file pages):\n")
	for _, t := range targets {
		anon, _ := statusBytes(t.proc.Process.Pid, "RssAnon")
		rss, _ := rssBytes(t.proc.Process.Pid)
		fmt.Fprintf(out, "  %-22s best with p99 ≤ 1 ms %7.0f q/s; CPU %.2f s per 100k answers; RSS anonymous %.1f / %.1f MB (total %.1f / %.1f MB)\n",
			t.name, t.best, per100k(t.cpu, t.queries), mb(t.idleAnon), mb(anon), mb(t.idleRSS), mb(rss))
	}
	us := targets[0]
	for _, t := range targets[1:] {
		if t.best == 0 || t.queries == 0 || us.queries == 0 {
			continue
		}
		if t.name == echoName {
			fmt.Fprintf(out, "  the floor: svcplane dns reaches %.0f%% of the echo's q/s; the client's own cost caps every server near %.0f q/s here\n",
				100*us.best/t.best, t.best)
			continue
		}
		fmt.Fprintf(out, "  svcplane dns vs %-20s %.2f× the q/s; %s uses %.2f× svcplane's CPU per answer\n", t.name+":", us.best/t.best, t.name,
			per100k(t.cpu, t.queries)/per100k(us.cpu, us.queries))
	}
	return nil
}

// per100k is cpu seconds per 100,000 of n answers.
func per100k(cpu float64, n int) float64 {
	if n == 0 {
		return 0
	}
	return cpu / float64(n) * 1e5
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times (100 on
// every Linux architecture Go supports).
const clockTicks = 100

// cpuSeconds is the user + system CPU time a process has used so far
// (its threads included), from /proc/<pid>/stat.
func cpuSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces;
	// utime and stime are fields 14 and 15, the 12th and 13th after it.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return float64(utime+stime) / clockTicks, nil
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

func startSvcplaneDNS(kubeconfig, cpuProfile, memProfile string) (*dnsTarget, error) {
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
	if cpuProfile != "" {
		cmd.Args = append(cmd.Args, "--cpuprofile", cpuProfile)
	}
	if memProfile != "" {
		cmd.Args = append(cmd.Args, "--memprofile", memProfile)
	}
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

type dnsStats struct {
	qps, p50, p99  float64
	answered, lost int
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
	return dnsStats{qps: float64(len(lat)) / d.Seconds(), p50: pct(lat, 50) * 1000, p99: pct(lat, 99) * 1000, answered: len(lat), lost: lost}, nil
}
