package dns

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// Config is how a cluster DNS server runs (`svcplane dns`, and inside
// `svcplane up`).
type Config struct {
	// ClusterDomain is the zone answered from the cluster.
	ClusterDomain string
	// TTL of the cluster's records.
	TTL time.Duration
	// BindAddress is the UDP and TCP address:port of the DNS.
	BindAddress string
	// Forward: "" (the nameservers of ResolvConf), "none" (refuse) or
	// upstream addresses, comma-separated.
	Forward    string
	ResolvConf string
	// HealthAddress, ReadyAddress and MetricsAddress serve /health,
	// /ready and /metrics (each serves all three; "" is off).
	HealthAddress, ReadyAddress, MetricsAddress string
	// Register, when set, keeps the kube-dns Service and its endpoints
	// pointing at this server.
	Register *Registration
}

// Defaults are CoreDNS's as kubeadm deploys it: port 53, health on 8080,
// ready on 8181, metrics on 9153, TTL 5 s, forwarding to /etc/resolv.conf.
func Defaults() Config {
	return Config{ClusterDomain: "cluster.local", TTL: 5 * time.Second, BindAddress: ":53",
		ResolvConf: "/etc/resolv.conf", HealthAddress: ":8080", ReadyAddress: ":8181", MetricsAddress: ":9153"}
}

// AddFlags registers the DNS flags.
func (c *Config) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.ClusterDomain, "cluster-domain", c.ClusterDomain, "The cluster's DNS domain: Services answer as <service>.<namespace>.svc.<domain>.")
	fs.DurationVar(&c.TTL, "dns-ttl", c.TTL, "TTL of the cluster's DNS records (whole seconds).")
	fs.StringVar(&c.BindAddress, "dns-bind-address", c.BindAddress, "The UDP and TCP address:port the cluster DNS listens on.")
	fs.StringVar(&c.Forward, "dns-forward", c.Forward, "Where names outside the cluster domain go: empty for the nameservers of --dns-resolv-conf, 'none' to refuse them, or upstream addresses (ip or ip:port, comma-separated).")
	fs.StringVar(&c.ResolvConf, "dns-resolv-conf", c.ResolvConf, "The resolv.conf whose nameservers get forwarded questions (with an empty --dns-forward).")
	fs.StringVar(&c.HealthAddress, "dns-health-address", c.HealthAddress, "Address of the DNS's /health endpoint (CoreDNS health plugin); empty: off.")
	fs.StringVar(&c.ReadyAddress, "dns-ready-address", c.ReadyAddress, "Address of the DNS's /ready endpoint (CoreDNS ready plugin); empty: off.")
	fs.StringVar(&c.MetricsAddress, "dns-metrics-address", c.MetricsAddress, "Address of the DNS's Prometheus /metrics (CoreDNS's series names); empty: off.")
}

// Validate checks the flags.
func (c *Config) Validate() error {
	if _, _, err := net.SplitHostPort(c.BindAddress); err != nil {
		return fmt.Errorf("--dns-bind-address %q: %w", c.BindAddress, err)
	}
	if c.TTL < 0 || c.TTL%time.Second != 0 || c.TTL > 3600*time.Second {
		return fmt.Errorf("--dns-ttl %v: must be whole seconds between 0 and 3600", c.TTL)
	}
	if c.ClusterDomain == "" {
		return fmt.Errorf("--cluster-domain must not be empty")
	}
	return nil
}

// Run serves the cluster DNS from client's Services and EndpointSlices
// until ctx ends. The sockets are bound first (a taken port fails at
// once); questions are answered once the informers have synced.
func Run(ctx context.Context, c Config, client kubernetes.Interface) error {
	if err := c.Validate(); err != nil {
		return err
	}
	var self []netip.AddrPort
	if ap, err := netip.ParseAddrPort(c.BindAddress); err == nil {
		self = append(self, ap)
	} else if _, p, err := net.SplitHostPort(c.BindAddress); err == nil {
		if ap, err := netip.ParseAddrPort("0.0.0.0:" + p); err == nil {
			self = append(self, ap)
		}
	}
	if c.Register != nil {
		self = append(self, netip.AddrPortFrom(c.Register.ClusterIP, 53))
	}
	upstreams, err := ParseForward(c.Forward, c.ResolvConf, self)
	if err != nil {
		return err
	}
	x := NewIndex()
	var synced atomic.Bool
	s := NewServer(NewResolver(x, c.ClusterDomain, c.TTL), upstreams, synced.Load)
	s.Name = serverName(c.BindAddress)
	pcs, l, err := Listen(c.BindAddress, runtime.GOMAXPROCS(0))
	if err != nil {
		return fmt.Errorf("cluster DNS: %w", err)
	}
	closeAll := func() {
		for _, pc := range pcs {
			pc.Close()
		}
		l.Close()
	}
	if err := s.ServeHTTP(ctx, c.HealthAddress, c.ReadyAddress, c.MetricsAddress); err != nil {
		closeAll()
		return fmt.Errorf("cluster DNS: %w", err)
	}
	if err := Feed(ctx, client, x); err != nil {
		closeAll()
		return err
	}
	synced.Store(true)
	debug.FreeOSMemory() // the initial lists' garbage: RSS is the index from here
	if c.Register != nil {
		if c.Register.Endpoint.Addr().IsLoopback() {
			klog.InfoS("The cluster DNS listens on a loopback address, which endpoints may not hold: kube-system/kube-dns gets no endpoints (set --advertise-address or --dns-bind-address)", "address", c.BindAddress)
		}
		writer := c.Register.Client
		if writer == nil {
			writer = client
		}
		go keepRegistered(ctx, writer, *c.Register)
	}
	klog.InfoS("Cluster DNS serving", "address", c.BindAddress, "domain", c.ClusterDomain, "services", x.Len(), "forward", upstreams)
	return s.Serve(ctx, pcs, l)
}

// keepRegistered applies the registration until it succeeds, then again
// every minute (it heals a deleted kube-dns Service or endpoints).
func keepRegistered(ctx context.Context, client kubernetes.Interface, reg Registration) {
	failing := false
	wait.UntilWithContext(ctx, func(ctx context.Context) {
		_ = wait.PollUntilContextCancel(ctx, time.Second, true, func(ctx context.Context) (bool, error) {
			err := Register(ctx, client, reg)
			if err != nil && !failing && ctx.Err() == nil {
				klog.InfoS("Registering the cluster DNS failed; retrying", "err", err)
			}
			failing = err != nil
			return err == nil, nil
		})
	}, time.Minute)
}
