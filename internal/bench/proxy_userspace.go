package bench

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/userspace"
)

// The userspace bench: in a fresh namespace, a child process serves a TCP
// sink (:8080) and an echo server (:8081) on loopback; this process runs
// the userspace proxy with VIPs 10.96.0.10 (sink) and 10.96.0.11 (echo)
// redirected to it; other children drive load. The proxy's CPU is this
// process's rusage.
const (
	benchSinkAddr = "127.0.0.1:8080"
	benchEchoAddr = "127.0.0.1:8081"
	benchSinkVIP  = "10.96.0.10:80"
	benchEchoVIP  = "10.96.0.11:80"
)

// userspaceBench runs the userspace bench in a fresh namespace, or, in a
// helper process, the helper's role.
func userspaceBench(out, errOut io.Writer, cfg ProxyConfig) error {
	switch {
	case cfg.UserspaceRole == "servers":
		return benchServers()
	case cfg.UserspaceRole == "push":
		return benchPush(os.Getenv("ADDR"), 3*time.Second)
	case cfg.UserspaceRole == "rtt":
		return benchRTT(os.Getenv("ADDR"), 10000, 4*time.Second)
	case !cfg.InNetns:
		return inFreshNetns(out, errOut, "bench", "proxy", "--in-netns", "--mode", "userspace")
	}
	return userspaceInNetns(out, errOut)
}

func userspaceInNetns(out, progressOut io.Writer) error {
	for _, args := range [][]string{{"link", "set", "lo", "up"}, {"route", "add", "10.96.0.0/16", "dev", "lo", "src", "127.0.0.1"}} {
		if b, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %v: %v: %s", args, err, b)
		}
	}
	servers, err := startBenchChild("servers")
	if err != nil {
		return err
	}
	defer func() { _ = servers.Process.Kill(); _ = servers.Wait() }()
	nft, err := userspace.NewNFT(proxy.IPv4)
	if err != nil {
		return err
	}
	snap := benchUserspaceSnapshot()
	p, err := userspace.NewProxier(userspace.Config{}, userspace.NewRedirector(nft, proxy.IPv4).WithNetlink(), func() *proxy.Snapshot { return snap }, nil)
	if err != nil {
		return err
	}
	defer p.Close()
	if err := p.SyncProxyRules(true); err != nil {
		return err
	}
	fmt.Fprintln(out, "userspace proxy, one VIP, loopback in a fresh network namespace (client and servers in other processes)")
	prog := startProgress(progressOut)
	defer prog.stop()
	prog.phase("userspace throughput through "+benchSinkVIP, nil)
	cpu0, t0 := cpuTime(), time.Now()
	push, err := runBenchChild("push", benchSinkVIP)
	if err != nil {
		return err
	}
	cores := (cpuTime() - cpu0).Seconds() / time.Since(t0).Seconds()
	fmt.Fprintf(out, "throughput through %s: %s; proxy CPU %.2f cores\n", benchSinkVIP, strings.TrimSpace(push), cores)
	prog.phase("userspace request/response, direct and via "+benchEchoVIP, nil)
	cpu0, t0 = cpuTime(), time.Now()
	rtt, err := runBenchChild("rtt", benchEchoAddr+","+benchEchoVIP)
	if err != nil {
		return err
	}
	cores = 2 * (cpuTime() - cpu0).Seconds() / time.Since(t0).Seconds() // proxied half the time
	lines := strings.Split(strings.TrimSpace(rtt), "\n")
	if len(lines) != 2 {
		return fmt.Errorf("rtt child: %q", rtt)
	}
	fmt.Fprintf(out, "request/response, direct:  %s\n", lines[0])
	fmt.Fprintf(out, "request/response, via VIP: %s; proxy CPU %.2f cores while proxying\n", lines[1], cores)
	fmt.Fprintf(out, "p99 added latency: %s\n", addedP99(lines[0], lines[1]))
	return nil
}

func benchUserspaceSnapshot() *proxy.Snapshot {
	s := &proxy.Snapshot{Family: proxy.IPv4, Services: map[proxy.ServicePortName]*proxy.ServicePort{},
		Endpoints: map[proxy.ServicePortName][]proxy.Endpoint{}, Node: proxy.Node{Name: "bench"}}
	for _, e := range [][2]string{{benchSinkVIP, benchSinkAddr}, {benchEchoVIP, benchEchoAddr}} {
		vip, ep := netip.MustParseAddrPort(e[0]), netip.MustParseAddrPort(e[1])
		name := proxy.ServicePortName{Namespace: "bench", Name: vip.Addr().String(), Port: "p", Protocol: proxy.TCP}
		s.Services[name] = &proxy.ServicePort{Name: name, Protocol: proxy.TCP, ClusterIP: vip.Addr(), Port: vip.Port()}
		s.Endpoints[name] = []proxy.Endpoint{{IP: ep.Addr(), Port: ep.Port(), Ready: true, Serving: true}}
	}
	return s
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchChild(role, addr string) (*exec.Cmd, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	c := exec.Command(self, "bench", "proxy", "--mode", "userspace", "--in-netns", "--userspace-role", role)
	c.Env = append(os.Environ(), "ADDR="+addr)
	c.Stderr = os.Stderr
	return c, nil
}

func startBenchChild(role string) (*exec.Cmd, error) {
	c, err := benchChild(role, "")
	if err != nil {
		return nil, err
	}
	dieWithParent(c)
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		return nil, err
	}
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
		_ = c.Process.Kill()
		return nil, fmt.Errorf("%s child did not start: %q", role, line)
	}
	return c, nil
}

func runBenchChild(role, addr string) (string, error) {
	c, err := benchChild(role, addr)
	if err != nil {
		return "", err
	}
	dieWithParent(c)
	out, err := c.Output()
	if err != nil {
		return "", fmt.Errorf("%s child: %w", role, err)
	}
	return string(out), nil
}

// benchServers runs the sink and the echo server until killed.
func benchServers() error {
	sink, err := net.Listen("tcp", benchSinkAddr)
	if err != nil {
		return err
	}
	echo, err := net.Listen("tcp", benchEchoAddr)
	if err != nil {
		return err
	}
	serveConns := func(l net.Listener, h func(net.Conn)) {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go h(c)
		}
	}
	go serveConns(sink, func(c net.Conn) { _, _ = io.Copy(io.Discard, c); c.Close() })
	go serveConns(echo, func(c net.Conn) { _, _ = io.Copy(c, c); c.Close() })
	fmt.Println("ready")
	select {}
}

// benchPush writes to addr over 4 connections for d and prints Gbit/s.
func benchPush(addr string, d time.Duration) error {
	const conns = 4
	results := make(chan int64, conns)
	start := time.Now()
	for i := 0; i < conns; i++ {
		go func() {
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				results <- -1
				return
			}
			_ = c.SetWriteDeadline(start.Add(d + 5*time.Second))
			buf := make([]byte, 1<<20)
			var n int64
			for time.Since(start) < d {
				m, err := c.Write(buf)
				n += int64(m)
				if err != nil {
					break
				}
			}
			c.Close()
			results <- n
		}()
	}
	var total int64
	for i := 0; i < conns; i++ {
		n := <-results
		if n < 0 {
			return fmt.Errorf("dial %s failed", addr)
		}
		total += n
	}
	secs := time.Since(start).Seconds()
	fmt.Printf("%.2f Gbit/s (%d MB in %.1fs, %d connections)\n", float64(total)*8/secs/1e9, total>>20, secs, conns)
	return nil
}

// benchRTT sends 64-byte requests paced at rate per second for d over 8
// connections to each address in addrs (comma-separated), alternating
// between the addresses every 50ms so both see the same machine noise,
// and prints round-trip percentiles per address, one line each.
func benchRTT(addrs string, rate int, d time.Duration) error {
	const conns = 8
	const slice = 50 * time.Millisecond
	targets := strings.Split(addrs, ",")
	interval := time.Duration(int64(time.Second) * conns / int64(rate))
	type result struct {
		target int
		rtts   []time.Duration
	}
	results := make(chan result, conns*len(targets))
	start := time.Now().Add(20 * time.Millisecond)
	for ti, addr := range targets {
		for i := 0; i < conns; i++ {
			go func(ti, i int, addr string) {
				c, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if err != nil {
					results <- result{ti, nil}
					return
				}
				defer c.Close()
				_ = c.SetDeadline(start.Add(d + 5*time.Second))
				buf := make([]byte, 64)
				rtts := []time.Duration{}
				next := start.Add(time.Duration(i) * interval / conns)
				for time.Since(start) < d {
					if w := time.Until(next); w > 0 {
						time.Sleep(w)
					}
					now := next
					next = next.Add(interval)
					if int(now.Sub(start)/slice)%len(targets) != ti {
						continue // the other address's turn
					}
					t := time.Now()
					if _, err := c.Write(buf); err != nil {
						break
					}
					if _, err := io.ReadFull(c, buf); err != nil {
						break
					}
					rtts = append(rtts, time.Since(t))
				}
				results <- result{ti, rtts}
			}(ti, i, addr)
		}
	}
	all := make([][]time.Duration, len(targets))
	for i := 0; i < conns*len(targets); i++ {
		r := <-results
		if r.rtts == nil {
			return fmt.Errorf("dial %s failed", targets[r.target])
		}
		all[r.target] = append(all[r.target], r.rtts...)
	}
	for ti, rtts := range all {
		slices.Sort(rtts)
		pct := func(p float64) time.Duration { return rtts[int(float64(len(rtts)-1)*p)] }
		fmt.Printf("%s: %d requests at %d/s in alternating 50ms slices, p50 %dµs p99 %dµs\n", targets[ti], len(rtts), rate,
			pct(0.5).Microseconds(), pct(0.99).Microseconds())
	}
	return nil
}

// addedP99 subtracts the direct p99 from the proxied one.
func addedP99(direct, via string) string {
	p99 := func(s string) int {
		i := strings.Index(s, "p99 ")
		if i < 0 {
			return -1
		}
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.Fields(s[i+4:])[0], "µs"))
		return n
	}
	a, b := p99(direct), p99(via)
	if a < 0 || b < 0 {
		return "unknown"
	}
	return fmt.Sprintf("%dµs (%dµs through the proxy − %dµs direct)", b-a, b, a)
}
