package bench

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"debug/buildinfo"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/keyutil"

	"github.com/svcplane/svcplane/internal/apiserver"
	"github.com/svcplane/svcplane/internal/controller/manager"
	"github.com/svcplane/svcplane/internal/kubeconfig"
	"github.com/svcplane/svcplane/internal/pki"
)

// upstreamServiceCIDR is the Service range of both sides (svcplane's
// default --service-cluster-ip-range).
const upstreamServiceCIDR = "10.96.0.0/12"

// upstreamProcs are the upstream side's processes: etcd, kube-apiserver
// (also server.proc) and, when there are, kube-controller-manager and
// kube-scheduler.
type upstreamProcs struct {
	bins                                   upstreamBinaries
	etcd, apiserver, controller, scheduler *child
	// versions is what each binary's --version says.
	versions string
	// stopAssigner stops the bench's pod CIDR assigner (no controller
	// manager).
	stopAssigner context.CancelFunc
}

// stop ends the scheduler, the controller manager, the API server, then
// etcd.
func (u *upstreamProcs) stop() {
	if u.stopAssigner != nil {
		u.stopAssigner()
	}
	u.scheduler.stop(20 * time.Second)
	u.controller.stop(20 * time.Second)
	u.apiserver.stop(30 * time.Second)
	u.etcd.stop(20 * time.Second)
}

// startUpstream starts etcd, kube-apiserver (kubeadm's authorization
// and admission settings, which are svcplane's defaults) and, with a
// binary for it, kube-controller-manager running svcplane's controllers
// with node IPAM over clusterCIDR and kube-scheduler, on a fresh temporary
// dir; it waits for /readyz. Without a controller manager the bench gives each Node a pod
// CIDR from clusterCIDR itself. The dir holds the same kubeconfigs a
// svcplane data dir does (kubeconfig: admin; node-simulator-kubeconfig).
func startUpstream(bins upstreamBinaries, clusterCIDR string, extra []string) (*server, error) {
	dir, err := os.MkdirTemp("", "svcplane-bench-upstream-")
	if err != nil {
		return nil, err
	}
	u := &upstreamProcs{bins: bins, versions: versions(bins)}
	b := &server{dir: dir, upstream: u}
	if err := b.startUpstream(clusterCIDR, extra); err != nil {
		b.stop()
		return nil, err
	}
	return b, nil
}

func (b *server) startUpstream(clusterCIDR string, extra []string) error {
	u := b.upstream
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	if err := writeUpstreamCredentials(b.dir, fmt.Sprintf("https://127.0.0.1:%d", ports[2])); err != nil {
		return err
	}
	start := time.Now()
	if u.etcd, err = startChild(b.dir, "etcd", u.bins.etcd, etcdArgs(b.dir, ports[0], ports[1])...); err != nil {
		return err
	}
	if err := waitEtcd(etcdURL, u.etcd, time.Minute); err != nil {
		return err
	}
	if u.apiserver, err = startChild(b.dir, "kube-apiserver", u.bins.apiserver, apiserverArgs(b.dir, etcdURL, ports[2], extra)...); err != nil {
		return err
	}
	b.proc = u.apiserver.cmd
	if b.config, err = clientcmd.BuildConfigFromFlags("", filepath.Join(b.dir, "kubeconfig")); err != nil {
		return err
	}
	b.config.WarningHandler = rest.NoWarnings{}
	if b.client, err = kubernetes.NewForConfig(b.config); err != nil {
		return err
	}
	if err := b.waitReady(start, 3*time.Minute, "kube-apiserver (log: "+b.upstream.apiserver.log+")", b.upstreamExited); err != nil {
		return err
	}
	if err := bindNodeSimulators(b.client); err != nil {
		return err
	}
	if u.bins.scheduler != "" {
		if u.scheduler, err = startChild(b.dir, "kube-scheduler", u.bins.scheduler, schedulerArgs(b.dir)...); err != nil {
			return err
		}
	}
	if u.bins.controllerManager == "" {
		return b.startPodCIDRAssigner(clusterCIDR)
	}
	controllers, err := svcplaneControllers()
	if err != nil {
		return err
	}
	u.controller, err = startChild(b.dir, "kube-controller-manager", u.bins.controllerManager, controllerManagerArgs(b.dir, clusterCIDR, controllers)...)
	return err
}

// upstreamExited is the error of etcd or kube-apiserver when either has
// exited, so that waiting for /readyz fails at once.
func (b *server) upstreamExited() error {
	for _, c := range []*child{b.upstream.etcd, b.upstream.apiserver} {
		if e := c.exitErr(); e != nil {
			return e
		}
	}
	return nil
}

func (b *server) startPodCIDRAssigner(clusterCIDR string) error {
	pool, err := newCIDRPool(clusterCIDR, 24)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.upstream.stopAssigner = cancel
	go newPodCIDRAssigner(b.client, pool).run(ctx)
	return nil
}

// etcdArgs is a single member on loopback, svcplane's embedded member's
// log level, every other setting etcd's default (as svcplane's).
func etcdArgs(dir string, clientPort, peerPort int) []string {
	c := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	p := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	return []string{"--name", "bench", "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", c, "--advertise-client-urls", c,
		"--listen-peer-urls", p, "--initial-advertise-peer-urls", p, "--initial-cluster", "bench=" + p,
		"--log-level", "warn"}
}

// apiserverArgs are kube-apiserver's flags: loopback, the bench's CA for
// serving and clients, a ServiceAccount key, svcplane's Service range, and
// kubeadm's --authorization-mode=Node,RBAC and
// --enable-admission-plugins=NodeRestriction (svcplane's defaults);
// everything else is kube-apiserver's default. extra comes last, so it
// can override.
func apiserverArgs(dir, etcdURL string, port int, extra []string) []string {
	p := filepath.Join(dir, "pki")
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir=" + p,
		"--tls-cert-file=" + filepath.Join(p, "apiserver.crt"), "--tls-private-key-file=" + filepath.Join(p, "apiserver.key"),
		"--client-ca-file=" + filepath.Join(p, "ca.crt"),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + filepath.Join(p, "sa.key"),
		"--service-account-signing-key-file=" + filepath.Join(p, "sa.key"),
		"--service-cluster-ip-range=" + upstreamServiceCIDR,
		"--authorization-mode=Node,RBAC",
		"--enable-admission-plugins=NodeRestriction",
		"--allow-privileged=true",
	}
	return append(args, extra...)
}

// upstreamClientQPS is the client rate limit of the upstream side's
// controller manager and scheduler (QPS and burst): svcplane's in-process
// controllers and scheduler use k8s.io/apiserver's loopback client, which
// has none, and at the binaries' defaults (20 and 50 QPS) the client
// limits, not the server, would set the pace.
const upstreamClientQPS = "10000"

// controllerManagerArgs run the given controllers as kubeadm does (each
// with its ServiceAccount's credentials), node IPAM over clusterCIDR
// in /24s, no serving port, no client rate limit (upstreamClientQPS).
func controllerManagerArgs(dir, clusterCIDR string, controllers []string) []string {
	p := filepath.Join(dir, "pki")
	return []string{
		"--kubeconfig=" + filepath.Join(dir, "controller-manager.kubeconfig"),
		"--bind-address=127.0.0.1", "--secure-port=0",
		"--kube-api-qps=" + upstreamClientQPS, "--kube-api-burst=" + upstreamClientQPS,
		"--use-service-account-credentials=true",
		"--controllers=" + strings.Join(controllers, ","),
		"--allocate-node-cidrs=true", "--cluster-cidr=" + clusterCIDR, "--node-cidr-mask-size=24",
		"--service-cluster-ip-range=" + upstreamServiceCIDR,
		"--root-ca-file=" + filepath.Join(p, "ca.crt"),
		"--service-account-private-key-file=" + filepath.Join(p, "sa.key"),
	}
}

// schedulerArgs run kube-scheduler with its default profile as kubeadm
// does (its own identity), no serving port, no client rate limit
// (upstreamClientQPS).
func schedulerArgs(dir string) []string {
	return []string{
		"--kubeconfig=" + filepath.Join(dir, "scheduler.kubeconfig"),
		"--bind-address=127.0.0.1", "--secure-port=0",
		"--kube-api-qps=" + upstreamClientQPS, "--kube-api-burst=" + upstreamClientQPS,
	}
}

// svcplaneControllers are the controllers `svcplane server` runs by
// default, by kube-controller-manager's names, less the scheduler (a
// separate binary upstream; `bench nodes --via pods` binds the pods
// itself; `bench deployment` runs kube-scheduler).
func svcplaneControllers() ([]string, error) {
	cs, err := manager.Select([]string{"*"})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, c := range cs {
		if c.Name != "scheduler" {
			names = append(names, c.Name)
		}
	}
	return names, nil
}

// writeUpstreamCredentials makes a CA, the API server's serving
// certificate, a ServiceAccount signing key and three kubeconfigs in dir:
// kubeconfig (admin, system:masters), node-simulator-kubeconfig (the
// simulator's user and group as svcplane mints them, plus system:nodes, so
// that kube-apiserver's priority and fairness puts its requests where a
// kubelet's go; neither the Node authorizer nor NodeRestriction treats it
// as a node, its user not being system:node:<name>) and
// controller-manager.kubeconfig (system:kube-controller-manager) and
// scheduler.kubeconfig (system:kube-scheduler).
func writeUpstreamCredentials(dir, url string) error {
	p := filepath.Join(dir, "pki")
	if err := os.MkdirAll(p, 0o700); err != nil {
		return err
	}
	ca, err := pki.LoadOrCreateCA(p, "svcplane-bench-upstream-ca")
	if err != nil {
		return err
	}
	if _, _, err := ca.EnsureServing(p, "apiserver", []string{"127.0.0.1", "localhost", "10.96.0.1",
		"kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}); err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(p, "sa.key"), keyPEM, 0o600); err != nil {
		return err
	}
	for _, k := range []struct {
		file, cert, user string
		groups           []string
	}{
		{"kubeconfig", "admin", "bench-admin", []string{apiserver.GroupMasters}},
		{"node-simulator-kubeconfig", "node-simulator", apiserver.UserNodeSimulator, []string{apiserver.GroupNodeSimulators, apiserver.GroupNodes}},
		{"controller-manager.kubeconfig", "controller-manager", "system:kube-controller-manager", nil},
		{"scheduler.kubeconfig", "scheduler", "system:kube-scheduler", nil},
	} {
		cert, key, err := ca.EnsureClient(p, k.cert, k.user, k.groups)
		if err != nil {
			return err
		}
		if err := kubeconfig.Write(filepath.Join(dir, k.file), kubeconfig.Config{Server: url, CAFile: ca.CertFile, User: k.user, CertFile: cert, KeyFile: key}); err != nil {
			return err
		}
	}
	return nil
}

// bindNodeSimulators binds the simulator's group to upstream's system:node
// ClusterRole, as svcplane's plane does at each start.
func bindNodeSimulators(client kubernetes.Interface) error {
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: apiserver.GroupNodeSimulators},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "system:node"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: apiserver.GroupNodeSimulators}},
	}
	_, err := client.RbacV1().ClusterRoleBindings().Create(context.Background(), crb, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// waitEtcd polls etcd's /health until it answers 200.
func waitEtcd(url string, etcd *child, timeout time.Duration) error {
	hc := &http.Client{Timeout: time.Second}
	return wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		if err := etcd.exitErr(); err != nil {
			return false, err
		}
		resp, err := hc.Get(url + "/health")
		if err != nil {
			return false, nil
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}

// freePorts returns n loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// versions names each binary's main package and the module version it
// was built from (its Go build information: build-upstream.sh's builds
// stamp no version of their own, their --version says v0.0.0-master).
func versions(b upstreamBinaries) string {
	var out []string
	for _, bin := range []string{b.apiserver, b.etcd, b.controllerManager, b.scheduler} {
		if bin != "" {
			out = append(out, fmt.Sprintf("%s: %s", filepath.Base(bin), builtFrom(bin)))
		}
	}
	return strings.Join(out, "; ")
}

// builtFrom is "<main package> <module version>, <go version>" from a
// binary's build information.
func builtFrom(bin string) string {
	bi, err := buildinfo.ReadFile(bin)
	if err != nil {
		return "no Go build information: " + err.Error()
	}
	version := bi.Main.Version
	best := ""
	for _, d := range bi.Deps {
		if (bi.Path == d.Path || strings.HasPrefix(bi.Path, d.Path+"/")) && len(d.Path) > len(best) {
			best, version = d.Path, d.Version
		}
	}
	return fmt.Sprintf("%s %s, %s", bi.Path, version, bi.GoVersion)
}
