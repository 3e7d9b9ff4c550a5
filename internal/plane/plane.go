package plane

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"

	"k8s.io/apiserver/pkg/authentication/serviceaccount"

	"github.com/svcplane/svcplane/internal/apiserver"
	"github.com/svcplane/svcplane/internal/controller/manager"
	"github.com/svcplane/svcplane/internal/dns"
	"github.com/svcplane/svcplane/internal/node/agent"
	"github.com/svcplane/svcplane/internal/proxy/app"
)

// Plane is a configured, not yet running, svcplane process: the API
// server (with its own loops), the controller manager and, under up, the
// local nodes and their proxy.
type Plane struct {
	// Server is the API server; its post-start hooks start the rest.
	Server  *apiserver.Server
	Options *Options
	// NodeKubeconfig is the path of the node credentials' kubeconfig;
	// NodeSimulatorKubeconfig that of the node simulator's.
	NodeKubeconfig, NodeSimulatorKubeconfig string

	loops *loops
}

// New validates o, prepares the API server (apiserver.New: embedded etcd,
// certificates, listener, admin kubeconfig), mints the node credentials
// and registers, as post-start hooks that do not hold up /readyz, the
// controller manager and (o.Nodes, o.ProxyMode) the local nodes and proxy.
func New(ctx context.Context, o *Options) (*Plane, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o.completeWebhookRouting()
	s, err := apiserver.New(ctx, o.Options)
	if err != nil {
		return nil, err
	}
	p := &Plane{Server: s, Options: o, NodeKubeconfig: o.NodeKubeconfigPath(),
		NodeSimulatorKubeconfig: o.NodeSimulatorKubeconfigPath(), loops: newLoops()}
	if err := p.build(); err != nil {
		s.Close()
		return nil, err
	}
	return p, nil
}

func (p *Plane) build() error {
	if err := p.writeNodeKubeconfigs(); err != nil {
		return err
	}
	if err := p.Server.AddPreShutdownHook("stop-local-loops", p.loops.stop); err != nil {
		return err
	}
	if err := p.addBinding(nodeSimulatorBinding); err != nil {
		return err
	}
	if err := p.addBinding(kubeletClientBinding); err != nil {
		return err
	}
	if err := p.addControllers(); err != nil {
		return err
	}
	if err := p.addLocalNodes(); err != nil {
		return err
	}
	if err := p.addLocalProxy(); err != nil {
		return err
	}
	return p.addLocalDNS()
}

// Run serves until ctx is cancelled (apiserver.Server.Run); the hooks'
// work stops with it.
func (p *Plane) Run(ctx context.Context) error { return p.Server.Run(ctx) }

// addControllers runs the --controllers in-process against the loopback
// server, under leader election, once the server serves; they do not hold
// up /readyz. The controller manager acts as system:kube-controller-manager
// and each controller as its own ServiceAccount (the scheduler as
// system:kube-scheduler), with upstream's RBAC roles.
func (p *Plane) addControllers() error {
	controllers, err := manager.Select(p.Options.Controllers)
	if err != nil {
		return err
	}
	conf, err := p.Options.ControllerOptions.Config()
	if err != nil {
		return err
	}
	// root-ca-cert-publisher publishes the bundle clients verify the
	// server with.
	if conf.RootCA, err = os.ReadFile(p.Server.CA().CertFile); err != nil {
		return err
	}
	// serviceaccount-token-controller signs with the server's key.
	conf.ServiceAccountKey = p.Server.ServiceAccountKey
	return p.Server.AddPostStartHook("start-controllers", func(hc genericapiserver.PostStartHookContext) error {
		p.loops.start(hc, func(ctx context.Context) {
			limit := newInFlightLimit(ControllerMutatingInFlight)
			creds := func(id manager.Identity) (*rest.Config, error) {
				cfg, err := p.identityConfig(hc.LoopbackClientConfig, id)
				if err == nil {
					cfg.Wrap(limit.wrap)
				}
				return cfg, err
			}
			root, err := creds(manager.Identity{User: manager.RootUser})
			if err != nil {
				klog.ErrorS(err, "Controllers not started")
				return
			}
			waitAuthorized(ctx, root, "get", "coordination.k8s.io", "leases", metav1.NamespaceSystem, 30*time.Second)
			if err := manager.Run(ctx, root, conf, controllers, "", creds); err != nil {
				klog.ErrorS(err, "Controllers stopped")
			}
		})
		return nil
	})
}

// addLocalNodes runs o.Nodes local simulated nodes (the first is
// --node-name; a single one has the advertise address as its InternalIP)
// once the server serves: one on its own node credentials, more on the
// node simulator's.
func (p *Plane) addLocalNodes() error {
	n, name := p.Options.Nodes, p.Options.NodeName
	if n <= 0 {
		return nil
	}
	no := NewNodeOptions()
	no.Nodes, no.NodeName, no.Runtime = n, name, p.Options.Runtime
	if no.Runtime == "netns" {
		no.Netns = p.Options.Netns
		no.Netns.ServiceCIDRs, no.Netns.ClusterCIDR = p.Options.ServiceClusterIPRange, p.Options.ClusterCIDR
		no.Netns.ProxyMode, no.Netns.LogDir = p.Options.ProxyMode, p.Options.DataDir
		no.Netns.ProxyKubeconfig = filepath.Join(p.Options.DataDir, "netns-proxy-kubeconfig")
		if p.Options.DNSEnabled {
			// Pods resolve through kube-dns, as the kubelet's --cluster-dns.
			c, reg, err := p.dnsConfig()
			if err != nil {
				return err
			}
			no.Netns.ClusterDNS, no.Netns.ClusterDomain = reg.ClusterIP.String(), c.ClusterDomain
		}
		if err := p.writeNetnsProxyKubeconfig(no.Netns.ProxyKubeconfig); err != nil {
			return err
		}
	}
	if n > 1 {
		no.NamePrefix = name + "-"
	}
	// One node runs as itself (Node authorizer, NodeRestriction); more
	// run on the node simulator's credentials.
	creds := p.NodeKubeconfig
	if n > 1 {
		creds = p.NodeSimulatorKubeconfig
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", creds)
	if err != nil {
		return err
	}
	ac, err := no.AgentConfig(cfg, no.Names(name))
	if err != nil {
		return err
	}
	if n == 1 && no.Runtime != "netns" {
		ac.InternalIPs = []string{p.Server.AdvertiseAddress.String()}
	}
	if ac.KubeletAPI != nil {
		// The local nodes' kubelet APIs listen on the advertise address
		// with certificates of the cluster CA (the API server checks
		// them when given --kubelet-certificate-authority
		// <data-dir>/pki/ca.crt; by default it does not, as kubeadm's).
		// netns nodes keep listening in their namespaces (Listen).
		addr := p.Server.AdvertiseAddress
		listen, port := ac.KubeletAPI.Listen, ac.KubeletAPI.Port
		caPEM, err := os.ReadFile(p.Server.CA().CertFile)
		if err != nil {
			closeRuntime(ac)
			return err
		}
		if ac.KubeletAPI, err = kubeletAPIConfig(cfg, caPEM, p.Server.CA(), kubeletBindAddress(addr), addr.String()); err != nil {
			closeRuntime(ac)
			return err
		}
		ac.KubeletAPI.Listen, ac.KubeletAPI.Port = listen, port
	}
	a, err := agent.New(ac)
	if err != nil {
		closeRuntime(ac)
		return err
	}
	return p.Server.AddPostStartHook("start-node-agent", func(hc genericapiserver.PostStartHookContext) error {
		p.loops.start(hc, func(ctx context.Context) {
			if n > 1 {
				// Several nodes act on the simulator's binding: start
				// when it decides, not with a burst of 403s.
				waitAuthorized(ctx, cfg, "list", "", "nodes", "", 30*time.Second)
			}
			if err := a.Run(ctx); err != nil {
				klog.ErrorS(err, "Node agent stopped")
			}
		})
		return nil
	})
}

// addLocalProxy runs the service proxy of the single local node in this
// process once the server serves, as kube-proxy's user system:kube-proxy
// (system:node-proxier's rules). A proxy that cannot program the kernel
// (not root, no nftables) is logged and leaves the rest running.
func (p *Plane) addLocalProxy() error {
	if p.Options.ProxyMode == ProxyNone {
		return nil
	}
	if p.Options.Runtime == "netns" {
		return nil // each node runs its own in its namespace
	}
	if p.Options.Nodes != 1 {
		klog.InfoS("Not starting the service proxy: it serves one local node", "nodes", p.Options.Nodes)
		return nil
	}
	pc := app.Defaults()
	pc.Mode, pc.HostnameOverride, pc.ClusterCIDR = p.Options.ProxyMode, p.Options.NodeName, p.Options.ClusterCIDR
	admin, err := clientcmd.BuildConfigFromFlags("", p.Server.Kubeconfig)
	if err != nil {
		return err
	}
	cfg, err := p.identityConfig(admin, manager.Identity{User: apiserver.UserKubeProxy})
	if err != nil {
		return err
	}
	return p.Server.AddPostStartHook("start-service-proxy", func(hc genericapiserver.PostStartHookContext) error {
		p.loops.start(hc, func(ctx context.Context) {
			waitAuthorized(ctx, cfg, "list", "discovery.k8s.io", "endpointslices", "", 30*time.Second)
			runProxy(ctx, pc, cfg)
		})
		return nil
	})
}

// addLocalDNS runs the cluster DNS in this process once the server
// serves, as kubeadm's CoreDNS ServiceAccount (kube-system/coredns, rules
// of system:coredns), and keeps kube-system/kube-dns pointing at it with
// the admin credentials (the registration applies that identity's RBAC as
// kubeadm's add-on). A DNS that cannot bind its port is logged and leaves
// the rest running.
func (p *Plane) addLocalDNS() error {
	if !p.Options.DNSEnabled {
		return nil
	}
	c, reg, err := p.dnsConfig()
	if err != nil {
		return err
	}
	admin, err := clientcmd.BuildConfigFromFlags("", p.Server.Kubeconfig)
	if err != nil {
		return err
	}
	if reg.Client, err = kubernetes.NewForConfig(admin); err != nil {
		return err
	}
	c.Register = &reg
	cfg, err := p.identityConfig(admin, manager.Identity{User: apiserver.UserCoreDNS,
		Groups: serviceaccount.MakeGroupNames(dns.Identity.Namespace)})
	if err != nil {
		return err
	}
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	return p.Server.AddPostStartHook("start-cluster-dns", func(hc genericapiserver.PostStartHookContext) error {
		p.loops.start(hc, func(ctx context.Context) {
			// The identity's RBAC comes with the registration.
			if err := dns.Register(ctx, reg.Client, reg); err != nil {
				klog.InfoS("Registering the cluster DNS failed; it retries once serving", "err", err)
			}
			waitAuthorized(ctx, cfg, "list", "", "services", "", 30*time.Second)
			if err := dns.Run(ctx, c, client); err != nil {
				klog.ErrorS(err, "Cluster DNS stopped; the rest of svcplane up runs on (see --dns-bind-address, --dns=false)")
			}
		})
		return nil
	})
}

// dnsConfig fills the DNS's empty addresses from the advertise address
// (port 53 as root, else 1053) and says where kube-dns points.
func (p *Plane) dnsConfig() (dns.Config, dns.Registration, error) {
	c := p.Options.DNS
	adv := p.Server.AdvertiseAddress.String()
	if c.BindAddress == "" {
		// Port 53 needs root; without it the DNS takes 1053 (kube-dns
		// still answers on 53 through a proxy, which needs root too).
		port := "53"
		if os.Geteuid() != 0 {
			port = "1053"
		}
		c.BindAddress = net.JoinHostPort(adv, port)
	}
	if c.MetricsAddress == "" {
		c.MetricsAddress = net.JoinHostPort(adv, "9153")
	}
	var reg dns.Registration
	if err := c.Validate(); err != nil {
		return c, reg, err
	}
	ep, err := netip.ParseAddrPort(c.BindAddress)
	if err != nil || ep.Addr().IsUnspecified() {
		_, port, _ := net.SplitHostPort(c.BindAddress)
		ep, err = netip.ParseAddrPort(net.JoinHostPort(adv, port))
	}
	if err != nil {
		return c, reg, fmt.Errorf("--dns-bind-address %q: %w", c.BindAddress, err)
	}
	reg.Endpoint = ep
	if mp, err := netip.ParseAddrPort(c.MetricsAddress); err == nil {
		reg.MetricsPort = mp.Port()
	}
	cidrs, err := apiserver.ServiceCIDRs(p.Options.ServiceClusterIPRange)
	if err != nil {
		return c, reg, err
	}
	if reg.ClusterIP, err = dns.TenthAddress(cidrs[0]); err != nil {
		return c, reg, err
	}
	return c, reg, nil
}

func runProxy(ctx context.Context, pc app.Config, cfg *rest.Config) {
	if err := app.RunForConfig(ctx, pc, cfg); err != nil {
		klog.ErrorS(err, "Service proxy stopped; the rest of svcplane up runs on (the proxy needs root and nftables)")
	}
}

// Announce writes msg to w once the server's /readyz answers 200 (not
// before: a user who reads "up" can use it at once).
func (p *Plane) Announce(w io.Writer, msg string) error {
	return p.Server.AddPostStartHook("announce-ready", func(hc genericapiserver.PostStartHookContext) error {
		go func() {
			if waitServerReady(hc, hc.LoopbackClientConfig) == nil {
				fmt.Fprint(w, msg)
			}
		}()
		return nil
	})
}

// Banner is what `svcplane up` prints once ready: where the API is, the
// line to use it, what runs here and a first thing to try.
func (p *Plane) Banner(kubeconfig string) string {
	proxy := "no service proxy (--proxy-mode none)"
	netnsNodes := p.Options.Runtime == "netns"
	switch {
	case p.Options.ProxyMode != ProxyNone && netnsNodes:
		proxy = "service proxy: " + p.Options.ProxyMode + " in each node's namespace"
	case p.Options.ProxyMode != ProxyNone && p.Options.Nodes == 1:
		proxy = "service proxy: " + p.Options.ProxyMode + " (as root; it logs why if it cannot program the kernel)"
	case p.Options.ProxyMode != ProxyNone:
		proxy = "no service proxy: it serves a single local node"
	}
	dnsLine := "cluster DNS: off (--dns=false)\n"
	if c, reg, err := p.dnsConfig(); p.Options.DNSEnabled && err == nil {
		dnsLine = fmt.Sprintf("cluster DNS: kube-system/kube-dns %s (%s), served on %s\n", reg.ClusterIP, c.ClusterDomain, c.BindAddress)
	}
	kind := "simulated"
	try := "try: kubectl create deployment web --image=registry.k8s.io/pause --replicas=3 && kubectl expose deployment web --port=80 && kubectl get endpointslices\n"
	if netnsNodes {
		kind = "netns (a network namespace each, on bridge " + p.Options.Netns.Bridge + " " + p.Options.Netns.HostAddress + ")"
		try = "try: kubectl create deployment web --image=registry.k8s.io/e2e-test-images/agnhost:2.53 --replicas=3 -- /agnhost netexec --http-port=8080\n" +
			"     kubectl expose deployment web --port=80 --target-port=8080\n" +
			"     curl http://$(kubectl get service web -o jsonpath='{.spec.clusterIP}')/hostname\n"
	}
	return fmt.Sprintf(`svcplane is up on %s
export KUBECONFIG=%s
nodes: %d %s (%s); %s
%s%s`, p.Server.URL, kubeconfig, p.Options.Nodes, kind, p.Options.NodeName, proxy, dnsLine, try)
}
