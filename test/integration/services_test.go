package integration

import (
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/svcplane/svcplane/internal/allocator/ipallocator"
	"github.com/svcplane/svcplane/internal/testutil"
	"github.com/svcplane/svcplane/test/integration/framework"
)

// TestServiceAllocationAcrossTwoServers creates 5,000 Services (every fifth a
// NodePort) from 64 goroutines split over two servers sharing one etcd, and
// finds no ClusterIP or NodePort given twice and (IPAddress mode) every IP
// held by an IPAddress naming its Service; after deleting them all, no
// IPAddress is left and every IP and every port can be taken again: each
// Service is re-created asking for its old ClusterIP and NodePort.
func TestServiceAllocationAcrossTwoServers(t *testing.T) {
	skipShort(t)
	t.Run("ipaddress", func(t *testing.T) { allocateAcrossTwoServers(t, "ipaddress", 5000) })
	t.Run("bitmap", func(t *testing.T) { allocateAcrossTwoServers(t, "bitmap", 2000) })
}

func allocateAcrossTwoServers(t *testing.T, mode string, total int) {
	a, err := framework.StartWith("", func(o *framework.Options) { o.ServiceIPAllocator = mode })
	if err != nil {
		t.Fatal(err)
	}
	defer a.Stop()
	b, err := framework.StartWith("", func(o *framework.Options) {
		o.EtcdServers, o.ServiceIPAllocator = a.EtcdEndpoints, mode
	})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	ns := newNamespace(t, a.Client)
	clients := []kubernetes.Interface{a.Client, b.Client}
	svcs := make([]*corev1.Service, total)
	for i := range svcs {
		svcs[i] = &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("s-%d", i)},
			Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
		if i%5 == 0 {
			svcs[i].Spec.Type = corev1.ServiceTypeNodePort
		}
	}
	var retried atomic.Int32
	inParallel(t, 64, clients, svcs, func(c kubernetes.Interface, s *corev1.Service) error {
		return createRetrying(c, ns, s, &retried)
	})
	list := get(a.Client.CoreV1().Services(ns).List(ctx, metav1.ListOptions{}))(t)
	ips, ports := map[string]string{}, map[int32]string{}
	for _, s := range list.Items {
		if other, dup := ips[s.Spec.ClusterIP]; dup || s.Spec.ClusterIP == "" {
			t.Fatalf("ClusterIP %q of %s also on %s", s.Spec.ClusterIP, s.Name, other)
		}
		ips[s.Spec.ClusterIP] = s.Name
		if s.Spec.Type == corev1.ServiceTypeNodePort {
			np := s.Spec.Ports[0].NodePort
			if other, dup := ports[np]; dup || np == 0 {
				t.Fatalf("NodePort %d of %s also on %s", np, s.Name, other)
			}
			ports[np] = s.Name
		}
	}
	if len(ips) != total || len(ports) != total/5 {
		t.Fatalf("%d ClusterIPs and %d NodePorts, want %d and %d", len(ips), len(ports), total, total/5)
	}
	if mode == "ipaddress" {
		held := map[string]string{}
		check := func() bool {
			clear(held)
			for _, obj := range get(b.Client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{}))(t).Items {
				if ref := obj.Spec.ParentRef; ref != nil && ref.Namespace == ns {
					held[obj.Name] = ref.Name
				}
			}
			return maps.Equal(held, ips)
		}
		// A create that timed out may still be giving back what it took.
		settled := func() error {
			if check() {
				return nil
			}
			return fmt.Errorf("not yet")
		}
		if !check() && (retried.Load() == 0 || testutil.Poll(20*time.Second, settled) != nil) {
			t.Fatalf("%d IPAddresses in %s, want one per Service (%d) naming it", len(held), ns, len(ips))
		}
	}

	inParallel(t, 16, clients, list.Items, func(c kubernetes.Interface, s corev1.Service) error {
		return c.CoreV1().Services(ns).Delete(ctx, s.Name, metav1.DeleteOptions{})
	})
	left := get(a.Client.NetworkingV1().IPAddresses().List(ctx, metav1.ListOptions{}))(t)
	for _, ip := range left.Items {
		if ip.Spec.ParentRef != nil && ip.Spec.ParentRef.Namespace == ns {
			t.Fatalf("IPAddress %s still held after its Service was deleted", ip.Name)
		}
	}
	// Every IP and every port is free again: each Service comes back with
	// the ClusterIP and NodePort it had (a create asking for a taken one
	// fails with "provided IP/port is already allocated").
	again := make([]*corev1.Service, len(list.Items))
	for i, s := range list.Items {
		again[i] = &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: s.Name},
			Spec: corev1.ServiceSpec{Type: s.Spec.Type, ClusterIP: s.Spec.ClusterIP,
				Ports: []corev1.ServicePort{{Port: 80, NodePort: s.Spec.Ports[0].NodePort}}}}
	}
	inParallel(t, 64, clients, again, func(c kubernetes.Interface, s *corev1.Service) error {
		if err := createRetrying(c, ns, s, &retried); err != nil {
			return fmt.Errorf("re-creating %s on its freed ClusterIP %s and NodePort %d: %w", s.Name, s.Spec.ClusterIP, s.Spec.Ports[0].NodePort, err)
		}
		return nil
	})
	if n := retried.Load(); n > 0 {
		t.Logf("%d creates were retried after the server timed out", n)
	}
}

// createRetrying creates s as a client that retries would: again after the
// server timed out (a 504, a 429, or etcd's "request timed out" under load);
// the first attempt may have landed, so then AlreadyExists is success. The
// test is about what gets allocated, not how fast.
func createRetrying(c kubernetes.Interface, ns string, s *corev1.Service, retried *atomic.Int32) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		_, err = c.CoreV1().Services(ns).Create(ctx, s, metav1.CreateOptions{})
		switch {
		case err == nil:
			return nil
		case attempt > 0 && apierrors.IsAlreadyExists(err):
			return nil
		case apierrors.IsTimeout(err) || apierrors.IsServerTimeout(err) || apierrors.IsTooManyRequests(err) ||
			strings.Contains(err.Error(), "etcdserver: request timed out"):
			retried.Add(1)
			continue
		}
		return err
	}
	return err
}

// inParallel calls do for every item from n goroutines, spreading them over
// clients, and fails t with the errors.
func inParallel[T any](t *testing.T, n int, clients []kubernetes.Interface, items []T, do func(kubernetes.Interface, T) error) {
	t.Helper()
	work := make(chan T, len(items))
	for _, it := range items {
		work <- it
	}
	close(work)
	var wg sync.WaitGroup
	errs := make(chan error, len(items))
	for w := 0; w < n; w++ {
		wg.Add(1)
		go func(c kubernetes.Interface) {
			defer wg.Done()
			for it := range work {
				if err := do(c, it); err != nil {
					errs <- err
				}
			}
		}(clients[w%len(clients)])
	}
	wg.Wait()
	close(errs)
	failed := 0
	for err := range errs {
		if failed++; failed <= 5 {
			t.Error(err)
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d calls failed", failed, len(items))
	}
}

// TestServiceAllocationErrors checks upstream's messages and field paths.
func TestServiceAllocationErrors(t *testing.T) {
	skipShort(t)
	s, err := framework.StartWith("", func(o *framework.Options) {
		o.ServiceClusterIPRange = "10.0.0.0/29" // 6 usable addresses
		o.ServiceNodePortRange = "30000-30009"
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	svcs := s.Client.CoreV1().Services("default")
	mk := func(name, ip string, np int32) error {
		spec := corev1.ServiceSpec{ClusterIP: ip, Ports: []corev1.ServicePort{{Port: 80, NodePort: np}}}
		if np != 0 {
			spec.Type = corev1.ServiceTypeNodePort
		}
		_, err := svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}, metav1.CreateOptions{})
		return err
	}
	noErr(t, mk("a", "10.0.0.2", 30005))
	cases := []struct {
		name, ip string
		np       int32
		want     string
		invalid  bool
	}{
		{"b", "10.0.0.2", 0, `spec.clusterIPs: Invalid value: ["10.0.0.2"]: failed to allocate IP 10.0.0.2: provided IP is already allocated`, true},
		{"c", "10.0.1.2", 0, `failed to allocate IP 10.0.1.2: the provided IP (10.0.1.2) is not in the valid range. The range of valid IPs is 10.0.0.0/29`, true},
		{"d", "", 30005, `spec.ports[0].nodePort: Invalid value: 30005: provided port is already allocated`, true},
		{"e", "", 31000, `spec.ports[0].nodePort: Invalid value: 31000: provided port is not in the valid range. The range of valid ports is 30000-30009`, true},
	}
	for _, c := range cases {
		err := mk(c.name, c.ip, c.np)
		if err == nil || !strings.Contains(err.Error(), c.want) || apierrors.IsInvalid(err) != c.invalid {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
	// A failed create must not keep what it took: "d" asked for a taken
	// port after getting a ClusterIP. Of the 6 addresses, "a" and the
	// kubernetes Service (10.0.0.1) hold two: 4 more Services still fit.
	eventually(t, "the kubernetes Service", func() bool {
		_, err := svcs.Get(ctx, "kubernetes", metav1.GetOptions{})
		return err == nil
	})
	for i := 0; i < 4; i++ {
		noErr(t, mk(fmt.Sprintf("fill-%d", i), "", 0))
	}
	err = mk("full", "", 0)
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "failed to allocate a serviceIP: range is full") {
		t.Fatalf("full range: %v", err)
	}
}

// TestRepairFreesALeakOnTheThirdPass simulates a server that crashed after
// taking a NodePort and a ClusterIP but before writing its Service (the
// allocation is made, the Service never written). The repair passes free
// the port on the third pass that finds it unused, not before; in IPAddress
// mode the orphaned IPAddress also waits out its 60 s grace period, so this
// uses the bitmap mode where the pass count alone decides.
func TestRepairFreesALeakOnTheThirdPass(t *testing.T) {
	skipShort(t)
	s, err := framework.StartWith("", func(o *framework.Options) {
		o.ServiceIPAllocator = "bitmap"
		o.RepairInterval = time.Hour // passes are driven by the test
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	al := s.ServiceAllocators
	leakedIP, err := al.IPs[corev1.IPv4Protocol].AllocateNext(ctx, ipallocator.Owner{Namespace: "default", Name: "crashed"}, false)
	noErr(t, err)
	ports, err := al.NodePorts.Allocate(ctx, nil, 1, false)
	noErr(t, err)
	// "crash": no Service is written.
	taken := func() (ipTaken, portTaken bool) {
		ipErr := al.IPs[corev1.IPv4Protocol].Allocate(ctx, leakedIP, ipallocator.Owner{}, true)
		_, portErr := al.NodePorts.Allocate(ctx, ports, 0, true)
		return ipErr != nil, portErr != nil
	}
	for pass := 1; pass <= 3; pass++ {
		for _, r := range s.ServiceRepairs {
			noErr(t, r.RunOnce(ctx))
		}
		ipTaken, portTaken := taken()
		if want := pass < 3; ipTaken != want || portTaken != want {
			t.Fatalf("after pass %d: IP %s taken=%v, port %d taken=%v; want taken=%v", pass, leakedIP, ipTaken, ports[0], portTaken, want)
		}
	}
	// A Service that really holds its values is never touched.
	svc := get(s.Client.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "kept"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{}))(t)
	for pass := 0; pass < 4; pass++ {
		for _, r := range s.ServiceRepairs {
			noErr(t, r.RunOnce(ctx))
		}
	}
	if _, err := al.NodePorts.Allocate(ctx, []int{int(svc.Spec.Ports[0].NodePort)}, 0, true); err == nil {
		t.Fatal("repair freed a NodePort that a Service holds")
	}
}

// TestHealthCheckNodePort: a LoadBalancer Service with externalTrafficPolicy
// Local gets a healthCheckNodePort allocated (created so, or changed to
// Local), keeps it on re-apply, and gives it back when it turns Cluster.
func TestHealthCheckNodePort(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	lb := func(name string, policy corev1.ServiceExternalTrafficPolicy) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeLoadBalancer, ExternalTrafficPolicy: policy,
			Selector: map[string]string{"app": "x"}, Ports: []corev1.ServicePort{{Port: 80}}}}
	}
	local := get(c.CoreV1().Services(ns).Create(ctx, lb("local", corev1.ServiceExternalTrafficPolicyLocal), metav1.CreateOptions{}))(t)
	hc := local.Spec.HealthCheckNodePort
	if hc < 30000 || hc > 32767 || hc == local.Spec.Ports[0].NodePort {
		t.Fatalf("healthCheckNodePort %d (nodePort %d), want its own port of the range", hc, local.Spec.Ports[0].NodePort)
	}
	// Re-applying without the field keeps it.
	again := lb("local", corev1.ServiceExternalTrafficPolicyLocal)
	again.ResourceVersion = local.ResourceVersion
	if got := get(c.CoreV1().Services(ns).Update(ctx, again, metav1.UpdateOptions{}))(t); got.Spec.HealthCheckNodePort != hc {
		t.Fatalf("update without the field: healthCheckNodePort %d, want %d kept", got.Spec.HealthCheckNodePort, hc)
	}
	cluster := get(c.CoreV1().Services(ns).Create(ctx, lb("cluster", corev1.ServiceExternalTrafficPolicyCluster), metav1.CreateOptions{}))(t)
	if cluster.Spec.HealthCheckNodePort != 0 {
		t.Fatalf("Cluster policy got healthCheckNodePort %d", cluster.Spec.HealthCheckNodePort)
	}
	cluster.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyLocal
	turned := get(c.CoreV1().Services(ns).Update(ctx, cluster, metav1.UpdateOptions{}))(t)
	if turned.Spec.HealthCheckNodePort == 0 {
		t.Fatal("turning Local must allocate a healthCheckNodePort")
	}
	turned.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	back := get(c.CoreV1().Services(ns).Update(ctx, turned, metav1.UpdateOptions{}))(t)
	if back.Spec.HealthCheckNodePort != 0 {
		t.Fatalf("turning Cluster must drop the healthCheckNodePort, got %d", back.Spec.HealthCheckNodePort)
	}
	// A port outside the range is still refused.
	bad := lb("bad", corev1.ServiceExternalTrafficPolicyLocal)
	bad.Spec.HealthCheckNodePort = 20000
	if _, err := c.CoreV1().Services(ns).Create(ctx, bad, metav1.CreateOptions{}); err == nil ||
		!strings.Contains(err.Error(), "spec.healthCheckNodePort") {
		t.Fatalf("out-of-range healthCheckNodePort: %v", err)
	}
}
