package e2e

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/svcplane/svcplane/internal/allocator/bitmap"
	"github.com/svcplane/svcplane/internal/etcd"
)

// Crash safety of Service allocation, proven under load: 32 clients create
// ClusterIP and NodePort Services while a server is killed with SIGKILL and
// restarted on its data dir. Then every acknowledged Service exists with
// what it was given, no IP or NodePort is held twice, and once the repair
// loops have run (--repair-interval 2s; a leaked IPAddress is freed when
// 60 s old) the IPAddress objects and the NodePort map equal the
// Services' allocations exactly. Runs on the host's loopback only.

const crashClients = 32

// TestCrashSafetyTwoServersOneEtcd kills one of two servers sharing an
// external etcd in the middle of the load.
func TestCrashSafetyTwoServersOneEtcd(t *testing.T) {
	requireRoot(t)
	t.Parallel()
	etcdURL := startHostEtcd(t)
	dir := t.TempDir()
	a := &hostServer{t: t, dir: filepath.Join(dir, "a"), port: freePort(t), args: []string{"server",
		"--etcd-servers", etcdURL, "--advertise-address", "10.203.0.21"}}
	b := &hostServer{t: t, dir: filepath.Join(dir, "b"), port: freePort(t), args: []string{"server",
		"--etcd-servers", etcdURL, "--advertise-address", "10.203.0.22"}}
	a.start()
	b.start()
	ec, err := clientv3.New(clientv3.Config{Endpoints: []string{etcdURL}, DialTimeout: 5 * time.Second})
	noErr(t, err)
	defer ec.Close()
	crashUnderLoad(t, []*hostServer{a, b}, a, ec)
}

// TestCrashSafetyUp kills `svcplane up` (embedded etcd) in the middle of
// the load and restarts it on its data dir.
func TestCrashSafetyUp(t *testing.T) {
	requireRoot(t)
	t.Parallel()
	up := &hostServer{t: t, dir: filepath.Join(t.TempDir(), "up"), port: freePort(t), args: []string{"up",
		"--nodes", "0", "--proxy-mode", "none", "--advertise-address", "10.203.0.23"}}
	up.start()
	ep, err := etcd.Endpoint(up.dir)
	noErr(t, err)
	// The socket path stays across the restart; the client reconnects.
	ec, err := clientv3.New(clientv3.Config{Endpoints: []string{ep}, DialTimeout: 5 * time.Second})
	noErr(t, err)
	defer ec.Close()
	crashUnderLoad(t, []*hostServer{up}, up, ec)
}

// crashUnderLoad runs the load against servers, kills victim with SIGKILL
// a third of the way in, restarts it, and checks the outcome (the
// allocation maps too when ec is given).
func crashUnderLoad(t *testing.T, servers []*hostServer, victim *hostServer, ec *clientv3.Client) {
	ns := "crash"
	_, err := servers[0].client().CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	noErr(t, err)
	l := &load{acked: map[string]*corev1.Service{}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < crashClients; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			l.run(servers[w%len(servers)], ns, w, stop)
		}(w)
	}
	time.Sleep(3 * time.Second)
	victim.kill()
	time.Sleep(2 * time.Second)
	victim.start()
	time.Sleep(3 * time.Second)
	close(stop)
	wg.Wait()
	t.Logf("%d Services acknowledged, %d creates failed (while the server was down or restarting)", len(l.acked), l.failed)
	if len(l.acked) < crashClients {
		t.Fatalf("only %d Services acknowledged: the load did not run", len(l.acked))
	}
	c := servers[len(servers)-1].client()
	list, err := c.CoreV1().Services("").List(context.Background(), metav1.ListOptions{})
	noErr(t, err)
	got := map[string]*corev1.Service{}
	for i := range list.Items {
		got[list.Items[i].Namespace+"/"+list.Items[i].Name] = &list.Items[i]
	}
	for name, want := range l.acked {
		svc := got[ns+"/"+name]
		if svc == nil {
			t.Errorf("acknowledged Service %s is lost", name)
			continue
		}
		if svc.Spec.ClusterIP != want.Spec.ClusterIP || nodePortOf(svc) != nodePortOf(want) {
			t.Errorf("Service %s: now %s:%d, acknowledged with %s:%d", name, svc.Spec.ClusterIP, nodePortOf(svc),
				want.Spec.ClusterIP, nodePortOf(want))
		}
	}
	ips, ports := map[string]string{}, map[int32]string{}
	for key, svc := range got {
		for _, ip := range svc.Spec.ClusterIPs {
			if other, dup := ips[ip]; dup {
				t.Errorf("ClusterIP %s held by %s and %s", ip, other, key)
			}
			ips[ip] = key
		}
		if np := nodePortOf(svc); np != 0 {
			if other, dup := ports[np]; dup {
				t.Errorf("NodePort %d held by %s and %s", np, other, key)
			}
			ports[np] = key
		}
	}
	if ec != nil {
		checkAllocations(t, c, ec)
	}
}

// checkAllocations waits until the IPAddress objects and the NodePort map
// in etcd equal what the Services hold (a leak is freed by the repair
// loops: on the third pass, and for an IPAddress once it is 60 s old).
func checkAllocations(t *testing.T, c kubernetes.Interface, ec *clientv3.Client) {
	t.Helper()
	start := time.Now()
	if diff := allocationDiff(c, ec); diff != "" {
		t.Logf("right after the load: %s (leaks for the repair loops)", diff)
	}
	for diff := allocationDiff(c, ec); diff != ""; diff = allocationDiff(c, ec) {
		if time.Since(start) > 150*time.Second {
			t.Fatalf("allocations still differ from the Services' after %v: %s", time.Since(start).Round(time.Second), diff)
		}
		time.Sleep(time.Second)
	}
	t.Logf("allocations equal to the Services' %v after the load", time.Since(start).Round(time.Second))
}

// allocationDiff compares the live allocations with the Services'; "" when
// equal.
func allocationDiff(c kubernetes.Interface, ec *clientv3.Client) string {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	svcs, err := c.CoreV1().Services("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	addrs, err := c.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	var wantIPs, gotIPs []string
	var wantPorts []int32
	for _, s := range svcs.Items {
		wantIPs = append(wantIPs, slices.DeleteFunc(slices.Clone(s.Spec.ClusterIPs), func(ip string) bool { return ip == "None" })...)
		if np := nodePortOf(&s); np != 0 {
			wantPorts = append(wantPorts, np)
		}
	}
	for _, a := range addrs.Items {
		gotIPs = append(gotIPs, a.Name)
	}
	slices.Sort(wantIPs)
	slices.Sort(gotIPs)
	if !slices.Equal(wantIPs, gotIPs) {
		return fmt.Sprintf("%d ClusterIPs held, %d IPAddresses", len(wantIPs), len(gotIPs))
	}
	gotPorts, err := nodePortMap(ctx, ec)
	if err != nil {
		return err.Error()
	}
	slices.Sort(wantPorts)
	if !slices.Equal(wantPorts, gotPorts) {
		return fmt.Sprintf("%d NodePorts held, %d set in the map", len(wantPorts), len(gotPorts))
	}
	return ""
}

// nodePortMap reads the NodePort RangeAllocation from etcd (default range
// 30000-32767) and returns the ports it marks taken.
func nodePortMap(ctx context.Context, ec *clientv3.Client) ([]int32, error) {
	resp, err := ec.Get(ctx, "/registry/ranges/servicenodeports")
	if err != nil || len(resp.Kvs) != 1 {
		return nil, fmt.Errorf("NodePort map in etcd: %v (%d keys)", err, len(resp.Kvs))
	}
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	ra := &corev1.RangeAllocation{}
	if _, _, err := protobuf.NewSerializer(scheme, scheme).Decode(resp.Kvs[0].Value, nil, ra); err != nil {
		return nil, err
	}
	b := bitmap.New(2768)
	b.Restore(ra.Data)
	var out []int32
	for i := uint64(0); i < b.Size(); i++ {
		if b.Has(i) {
			out = append(out, 30000+int32(i))
		}
	}
	return out, nil
}

func nodePortOf(s *corev1.Service) int32 {
	if s.Spec.Type != corev1.ServiceTypeNodePort || len(s.Spec.Ports) == 0 {
		return 0
	}
	return s.Spec.Ports[0].NodePort
}

// load is the clients' shared record of what the servers acknowledged.
type load struct {
	mu     sync.Mutex
	acked  map[string]*corev1.Service
	failed int
}

// run creates Services through s until stop closes: every third a
// NodePort one. A create that errs (server down) is counted, not retried.
func (l *load) run(s *hostServer, ns string, w int, stop <-chan struct{}) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%d-%d", w, i)},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
		if i%3 == 0 {
			svc.Spec.Type = corev1.ServiceTypeNodePort
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		got, err := s.client().CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
		cancel()
		l.mu.Lock()
		if err != nil {
			l.failed++
		} else {
			l.acked[got.Name] = got
		}
		l.mu.Unlock()
		if err != nil {
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// hostServer is a svcplane process on the host's loopback with its own
// data dir; it keeps its port across restarts.
type hostServer struct {
	t    *testing.T
	dir  string
	port int
	args []string

	mu sync.Mutex
	p  *proc
	c  kubernetes.Interface
}

func (s *hostServer) start() {
	s.t.Helper()
	args := append(slices.Clone(s.args), "--data-dir", s.dir, "--bind-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(s.port), "--repair-interval", "2s")
	p := startHost(s.t, bin, args...)
	s.mu.Lock()
	s.p, s.c = p, nil
	s.mu.Unlock()
	waitFor(s.t, "svcplane "+s.args[0]+" on port "+strconv.Itoa(s.port)+" ready", 60*time.Second, func() bool {
		// Longer than the server's own etcd readiness check (2 s): a poll
		// given up before /readyz answers makes the server log
		// "Post-timeout activity" as an error, which the console tests
		// count against it.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c := s.client()
		if c == nil {
			return false
		}
		return c.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error() == nil
	})
}

func (s *hostServer) kill() { s.kill2(syscall.SIGKILL) }

// kill2 sends sig and waits for the process to exit.
func (s *hostServer) kill2(sig syscall.Signal) {
	s.mu.Lock()
	p := s.p
	s.mu.Unlock()
	p.signal(s.t, sig)
}

// client returns a client of this server (nil until its kubeconfig exists).
func (s *hostServer) client() kubernetes.Interface {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil {
		return s.c
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(s.dir, "kubeconfig"))
	if err != nil {
		return nil
	}
	cfg.QPS, cfg.Burst = -1, 0
	if s.c, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil
	}
	return s.c
}

// startHostEtcd runs Debian's etcd on free loopback ports and returns its
// client URL.
func startHostEtcd(t *testing.T) string {
	t.Helper()
	client := "http://127.0.0.1:" + strconv.Itoa(freePort(t))
	peer := "http://127.0.0.1:" + strconv.Itoa(freePort(t))
	startHost(t, "etcd", "--name", "e0", "--data-dir", t.TempDir(),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", "e0="+peer)
	return client
}

// freePort returns a TCP port free on 127.0.0.1 now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	noErr(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
