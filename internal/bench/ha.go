package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/svcplane/svcplane/internal/bootstrap/reconcilers"
	"github.com/svcplane/svcplane/internal/etcd"
)

// HAConfig is `svcplane bench ha`'s settings.
type HAConfig struct {
	// Observe is how long endpoint writes are counted with all servers
	// live.
	Observe time.Duration
	// Rounds of concurrent starts, each of 2..5 servers in turn.
	Rounds int
}

// haAddrs are the advertise addresses of the three servers: data in the
// kubernetes endpoints only (nothing connects to these). Each binds its own
// loopback address, haBinds, on one port: the endpoints carry one port, and
// servers on different ports would rewrite it in turn.
var (
	haAddrs = []string{"10.203.0.51", "10.203.0.52", "10.203.0.53"}
	haBinds = []string{"127.0.0.51", "127.0.0.52", "127.0.0.53"}
)

// sharedPort returns a port free on every one of addrs.
func sharedPort(addrs []string) (string, error) {
	for try := 0; try < 20; try++ {
		l, err := net.Listen("tcp", net.JoinHostPort(addrs[0], "0"))
		if err != nil {
			return "", err
		}
		port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		free := true
		for _, a := range addrs[1:] {
			if m, err := net.Listen("tcp", net.JoinHostPort(a, port)); err != nil {
				free = false
			} else {
				m.Close()
			}
		}
		l.Close()
		if free {
			return port, nil
		}
	}
	return "", fmt.Errorf("no port free on all of %v", addrs)
}

// HA runs three `svcplane server` processes on one etcd (the first one's
// embedded member, reached through its unix socket) and prints: endpoint
// writes per minute while all live, the time for a SIGKILLed server to
// leave the kubernetes endpoints, the time for a SIGTERMed one, and how
// many rounds of servers started together all became ready.
func HA(out, progress io.Writer, cfg HAConfig) error {
	p := startProgress(progress)
	defer p.stop()
	p.phase("starting three servers on one etcd", nil)
	port, err := sharedPort(haBinds)
	if err != nil {
		return err
	}
	at := func(i int) []string {
		return []string{"--bind-address", haBinds[i], "--secure-port", port, "--advertise-address", haAddrs[i]}
	}
	first, err := startServer(at(0)...)
	if err != nil {
		return err
	}
	defer first.stop()
	ep, err := etcd.Endpoint(first.dir)
	if err != nil {
		return err
	}
	servers := []*server{first}
	for i := range haAddrs[1:] {
		s, err := startServer(append(at(i+1), "--etcd-servers", ep)...)
		if err != nil {
			return err
		}
		defer s.stop()
		servers = append(servers, s)
	}
	c := first.client
	if _, err := waitEndpoints(c, haAddrs, time.Minute); err != nil {
		return err
	}
	p.phase(fmt.Sprintf("counting endpoint writes for %v", cfg.Observe), nil)
	writes, err := countEndpointWrites(c, cfg.Observe)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "endpoint writes with 3 live servers: %d in %v (%.1f/min; goal 0)\n",
		writes, cfg.Observe, float64(writes)/cfg.Observe.Minutes())

	p.phase("killing a server (SIGKILL)", nil)
	took, err := leaveTime(servers[2], syscall.SIGKILL, c, haAddrs[:2])
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "killed server (SIGKILL) left the endpoints after %.1fs (lease TTL 15 s; goal <= 16 s)\n", took.Seconds())
	p.phase("stopping a server (SIGTERM)", nil)
	if took, err = leaveTime(servers[1], syscall.SIGTERM, c, haAddrs[:1]); err != nil {
		return err
	}
	fmt.Fprintf(out, "stopped server (SIGTERM) left the endpoints after %.3fs (goal <= 1 s)\n", took.Seconds())

	ok := 0
	for round := 0; round < cfg.Rounds; round++ {
		n := 2 + round%4
		p.phase(fmt.Sprintf("concurrent start round %d of %d (%d servers)", round+1, cfg.Rounds, n), nil)
		if err := startTogether(ep, fmt.Sprintf("/bench-ha-%d-%d", time.Now().UnixNano(), round), n); err != nil {
			fmt.Fprintf(out, "concurrent start round %d (%d servers): %v\n", round+1, n, err)
			continue
		}
		ok++
	}
	fmt.Fprintf(out, "concurrent starts: %d/%d rounds had every server ready (2..5 servers at once; goal %d/%d)\n", ok, cfg.Rounds, cfg.Rounds, cfg.Rounds)
	return nil
}

// waitEndpoints waits until the kubernetes Endpoints list exactly want.
func waitEndpoints(c kubernetes.Interface, want []string, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	var got []string
	for time.Since(start) < limit {
		e, err := c.CoreV1().Endpoints("default").Get(context.Background(), "kubernetes", metav1.GetOptions{})
		if err == nil {
			got = reconcilers.AddressesOf(e)
			if slices.Equal(got, want) {
				return time.Since(start), nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return 0, fmt.Errorf("the kubernetes endpoints list %v after %v, want %v", got, limit, want)
}

// countEndpointWrites watches the kubernetes Endpoints and EndpointSlice
// for d and counts the changes.
func countEndpointWrites(c kubernetes.Interface, d time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	opts := metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "kubernetes").String()}
	e, err := c.CoreV1().Endpoints("default").List(ctx, opts)
	if err != nil {
		return 0, err
	}
	s, err := c.DiscoveryV1().EndpointSlices("default").List(ctx, opts)
	if err != nil {
		return 0, err
	}
	opts.ResourceVersion = e.ResourceVersion
	we, err := c.CoreV1().Endpoints("default").Watch(ctx, opts)
	if err != nil {
		return 0, err
	}
	defer we.Stop()
	opts.ResourceVersion = s.ResourceVersion
	ws, err := c.DiscoveryV1().EndpointSlices("default").Watch(ctx, opts)
	if err != nil {
		return 0, err
	}
	defer ws.Stop()
	n := 0
	for {
		select {
		case <-ctx.Done():
			return n, nil
		case ev := <-we.ResultChan():
			n += countChange(ev, func(o any) bool { _, ok := o.(*corev1.Endpoints); return ok })
		case ev := <-ws.ResultChan():
			n += countChange(ev, func(o any) bool { _, ok := o.(*discoveryv1.EndpointSlice); return ok })
		}
	}
}

func countChange(ev watch.Event, ours func(any) bool) int {
	if ev.Type != watch.Bookmark && ours(ev.Object) {
		return 1
	}
	return 0
}

// leaveTime signals s and times until the endpoints list exactly rest.
func leaveTime(s *server, sig syscall.Signal, c kubernetes.Interface, rest []string) (time.Duration, error) {
	start := time.Now()
	if err := s.proc.Process.Signal(sig); err != nil {
		return 0, err
	}
	if _, err := waitEndpoints(c, rest, time.Minute); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// startTogether starts n servers at once on etcd ep under a fresh prefix
// and stops them; it fails if any did not become ready.
func startTogether(ep, prefix string, n int) error {
	var wg sync.WaitGroup
	errs := make([]string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s, err := startServer("--etcd-servers", ep, "--etcd-prefix", prefix,
				"--advertise-address", fmt.Sprintf("10.203.1.%d", i+1))
			if err != nil {
				errs[i] = fmt.Sprintf("server %d: %v", i+1, err)
				return
			}
			s.stop()
		}(i)
	}
	wg.Wait()
	msg := strings.Join(slices.DeleteFunc(errs, func(s string) bool { return s == "" }), "; ")
	if msg != "" {
		return fmt.Errorf("%s", msg)
	}
	return nil
}
