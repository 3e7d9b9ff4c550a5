package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ServicesConfig is `svcplane bench services`'s settings.
type ServicesConfig struct {
	// Services to create with Clients concurrent clients.
	Services, Clients int
	// Headless Services (no ClusterIP), for comparison.
	Headless bool
	// Protobuf: talk protobuf (false: JSON, as kubectl).
	Protobuf bool
	// Connections is how many client connections the Clients share
	// (client-go multiplexes every request of one clientset over one
	// HTTP/2 connection); 0 is one per client.
	Connections int
	// Kubeconfig of a running server to use instead of a fresh one.
	Kubeconfig string
	// ServerArgs are extra flags of the fresh server.
	ServerArgs []string
	// As, when set, creates the Services as this user (a client
	// certificate), allowed by a RoleBinding to ClusterRole edit in
	// default: RBAC decides every request, and the server's authorization
	// time per request is printed. Fresh server only.
	As string
	// Against: svcplane (default), upstream (kube-apiserver, etcd and
	// kube-controller-manager from Upstream) or both, in turn.
	Against  string
	Upstream UpstreamConfig
}

// Services creates cfg.Services ClusterIP Services on a fresh server (or
// the one of cfg.Kubeconfig) and prints the rate, p50/p99 and a
// uniqueness check of the ClusterIPs; with cfg.Against upstream or both,
// the same on a fresh kube-apiserver, etcd and kube-controller-manager.
func Services(out, progress io.Writer, cfg ServicesConfig) error {
	list, err := sides(cfg.Against)
	if err != nil {
		return err
	}
	var bins upstreamBinaries
	if slices.Contains(list, SideUpstream) {
		switch {
		case cfg.Kubeconfig != "":
			return fmt.Errorf("--against %s needs fresh servers (no --kubeconfig)", cfg.Against)
		case cfg.As != "":
			return fmt.Errorf("--as mints the user's certificate with svcplane's CA: use it with --against svcplane")
		}
		if bins, err = cfg.Upstream.resolve(); err != nil {
			return err
		}
	}
	_, err = eachSide(out, list, func(side string) (struct{}, error) {
		return struct{}{}, servicesOnce(out, progress, cfg, side, bins)
	})
	return err
}

// servicesOnce is one side's run (or the run against cfg.Kubeconfig).
func servicesOnce(out, progress io.Writer, cfg ServicesConfig, side string, bins upstreamBinaries) error {
	var rc rest.Config
	var b *server
	if cfg.As != "" && cfg.Kubeconfig != "" {
		return fmt.Errorf("--as needs a fresh server (no --kubeconfig)")
	}
	if cfg.Kubeconfig != "" {
		c, err := clientcmd.BuildConfigFromFlags("", cfg.Kubeconfig)
		if err != nil {
			return err
		}
		rc = *c
	} else {
		var err error
		if side == SideUpstream {
			b, err = startUpstream(bins, clusterCIDRFor(1), cfg.Upstream.APIServerArgs)
		} else {
			b, err = startServer(cfg.ServerArgs...)
		}
		if err != nil {
			return err
		}
		defer b.stop()
		if u := b.upstream; u != nil {
			fmt.Fprintln(out, u.versions)
		}
		rc = *b.config
		if cfg.As != "" {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			uc, err := b.asUser(self, cfg.As, "edit", "default")
			if err != nil {
				return err
			}
			rc = *uc
		}
	}
	rc.QPS, rc.Burst = -1, 0 // no client-side throttling
	if cfg.Protobuf {
		rc.ContentType = "application/vnd.kubernetes.protobuf"
		rc.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	}
	conns, err := connections(&rc, cfg.Connections, cfg.Clients)
	if err != nil {
		return err
	}
	p := startProgress(progress)
	defer p.stop()
	var sec0, n0 float64
	if cfg.As != "" {
		if sec0, n0, err = b.authzTotals(); err != nil {
			return err
		}
	}
	var cpu *cpuMeter
	if b != nil {
		procs := b.procs()
		if err := settleProcs(out, procPIDs(procs)); err != nil {
			return err
		}
		if cpu, err = startCPUMeter(procNames(procs), procPIDs(procs)); err != nil {
			return err
		}
	}
	if err := createServices(out, p, conns, cfg.Services, cfg.Clients, cfg.Headless); err != nil {
		return err
	}
	if cpu != nil {
		used, err := cpu.used()
		if err != nil {
			return err
		}
		total := 0.0
		for _, u := range used {
			total += u
		}
		// The server side's own CPU per Service bounds the rate: N cores
		// create at most N / (CPU per Service) a second.
		per := total / float64(cfg.Services)
		detail := ""
		if len(used) > 1 {
			detail = " (" + cpu.describe(used, cfg.Services, "Service") + ")"
		}
		fmt.Fprintf(out, "server-side CPU (user+system, /proc): %.2f ms per Service (incl. the uniqueness list)%s; %d cores all to the server side would create at most %.0f Services/s\n",
			per*1e3, detail, runtime.NumCPU(), float64(runtime.NumCPU())/per)
	}
	if cfg.As != "" {
		sec1, n1, err := b.authzTotals()
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "authorization as %s (RBAC: RoleBinding to edit in default; Node,RBAC chain): %.0f decisions, %.1f µs per request (authorization_duration_seconds)\n",
			cfg.As, n1-n0, (sec1-sec0)/(n1-n0)*1e6)
	}
	return nil
}

// connections makes n clientsets of rc (0: one per client), each with its
// own transport and so its own connection.
func connections(rc *rest.Config, n, clients int) ([]kubernetes.Interface, error) {
	if n <= 0 {
		n = clients
	}
	out := make([]kubernetes.Interface, 0, n)
	for range n {
		c := rest.CopyConfig(rc)
		// A Proxy func makes client-go's transport cache skip this config
		// (it cannot compare functions): a transport of its own. It
		// proxies nothing.
		c.Proxy = func(*http.Request) (*url.URL, error) { return nil, nil }
		cs, err := kubernetes.NewForConfig(c)
		if err != nil {
			return nil, err
		}
		out = append(out, cs)
	}
	return out, nil
}

// createServices creates n Services with clients workers; worker w uses
// conns[w % len(conns)].
func createServices(out io.Writer, p *progress, conns []kubernetes.Interface, n, clients int, headless bool) error {
	ctx := context.Background()
	lat := make([]time.Duration, n)
	var next, done atomic.Int64
	var firstErr error
	var errOnce sync.Once
	p.phase("creating Services", func() string { return strconv.FormatInt(done.Load(), 10) + " of " + strconv.Itoa(n) + " created" })
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < clients; w++ {
		wg.Add(1)
		client := conns[w%len(conns)]
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				t := time.Now()
				name, err := createService(ctx, client, i, headless)
				lat[i] = time.Since(t)
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("creating %s: %w", name, err) })
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return firstErr
	}
	slices.Sort(lat)
	kind := "ClusterIP"
	if headless {
		kind = "headless"
	}
	fmt.Fprintf(out, "%d %s Services with %d clients over %d connections in %.2fs: %.0f Services/s, p50 %.1f ms, p99 %.1f ms\n",
		n, kind, clients, len(conns), elapsed.Seconds(), float64(n)/elapsed.Seconds(),
		ms(lat[n/2]), ms(lat[min(n-1, n*99/100)]))
	p.phase("checking ClusterIP uniqueness", nil)
	return checkUnique(out, ctx, conns[0], n, headless)
}

// createService creates Service bench-<i> in default.
func createService(ctx context.Context, client kubernetes.Interface, i int, headless bool) (string, error) {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%d", i)},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}
	if headless {
		svc.Spec.ClusterIP = corev1.ClusterIPNone
	}
	_, err := client.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{})
	return svc.Name, err
}

// checkUnique lists the Services and fails if two share a ClusterIP.
func checkUnique(out io.Writer, ctx context.Context, client kubernetes.Interface, n int, headless bool) error {
	list, err := client.CoreV1().Services("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	seen := map[string]string{}
	for _, s := range list.Items {
		ip := s.Spec.ClusterIP
		if ip == "" || ip == corev1.ClusterIPNone || s.Name == "kubernetes" {
			continue
		}
		if other, dup := seen[ip]; dup {
			return fmt.Errorf("DUPLICATE ClusterIP %s on %s and %s", ip, other, s.Name)
		}
		seen[ip] = s.Name
	}
	if !headless && len(seen) != n {
		return fmt.Errorf("%d Services have a ClusterIP, want %d", len(seen), n)
	}
	fmt.Fprintf(out, "uniqueness: %d distinct ClusterIPs, no duplicates\n", len(seen))
	return nil
}
