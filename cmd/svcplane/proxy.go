package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	kubeproxyconfig "k8s.io/kube-proxy/config/v1alpha1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/yaml"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/healthcheck"
	"github.com/svcplane/svcplane/internal/proxy/metrics"
	"github.com/svcplane/svcplane/internal/proxy/nftables"
	"github.com/svcplane/svcplane/internal/proxy/runner"
	"github.com/svcplane/svcplane/internal/proxy/tracker"
)

// proxyOptions are kube-proxy's settings that svcplane honours, with
// kube-proxy's defaults.
type proxyOptions struct {
	kubeconfig, configFile, mode, clusterCIDR, hostname string
	minSync, sync                                       time.Duration
	nodePortAddresses                                   []string
	masqueradeAll, cleanup                              bool
	healthzAddr, metricsAddr                            string
	modes                                               modeOptions
}

func newProxyCommand() *cobra.Command {
	o := &proxyOptions{mode: "nftables", minSync: time.Second, sync: 30 * time.Second,
		healthzAddr: "0.0.0.0:10256", metricsAddr: "127.0.0.1:10249"}
	cmd := &cobra.Command{
		Use:   "proxy",
		Short: "Run the service proxy on this node (kube-proxy compatible: nftables, iptables, ipvs or userspace mode)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.configFile != "" {
				if err := o.loadConfig(cmd); err != nil {
					return err
				}
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if o.cleanup {
				return cleanupProxy(ctx)
			}
			return runProxy(ctx, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "Path to a kubeconfig (empty: in-cluster config).")
	f.StringVar(&o.configFile, "config", "", "A KubeProxyConfiguration (kubeproxy.config.k8s.io/v1alpha1) file; flags given explicitly win.")
	f.StringVar(&o.mode, "proxy-mode", o.mode, "Proxy mode: nftables, iptables, ipvs (falls back to iptables without kernel IPVS) or userspace.")
	f.StringVar(&o.clusterCIDR, "cluster-cidr", "", "Pod CIDRs (comma-separated); traffic to a ClusterIP from outside is masqueraded.")
	f.StringVar(&o.hostname, "hostname-override", "", "Node name to use instead of the hostname.")
	f.DurationVar(&o.minSync, "min-sync-period", o.minSync, "Minimum interval between rule syncs.")
	f.DurationVar(&o.sync, "sync-period", o.sync, "Interval of full rule resyncs.")
	f.StringSliceVar(&o.nodePortAddresses, "nodeport-addresses", nil, "CIDRs (or \"primary\") NodePorts are accepted on; empty: all local addresses.")
	f.BoolVar(&o.masqueradeAll, "masquerade-all", false, "Masquerade all Service traffic.")
	f.StringVar(&o.healthzAddr, "healthz-bind-address", o.healthzAddr, "Address:port of /healthz and /livez (empty: off).")
	f.StringVar(&o.metricsAddr, "metrics-bind-address", o.metricsAddr, "Address:port of /metrics (empty: off).")
	f.BoolVar(&o.cleanup, "cleanup", false, "Remove everything the proxy installed and exit.")
	addModeFlags(f, o)
	return cmd
}

// loadConfig reads a KubeProxyConfiguration; flags set on the command line
// keep their values.
func (o *proxyOptions) loadConfig(cmd *cobra.Command) error {
	data, err := os.ReadFile(o.configFile)
	if err != nil {
		return err
	}
	var c kubeproxyconfig.KubeProxyConfiguration
	if err := yaml.UnmarshalStrict(data, &c); err != nil {
		return fmt.Errorf("%s: %w", o.configFile, err)
	}
	if c.Kind != "" && (c.Kind != "KubeProxyConfiguration" || c.APIVersion != kubeproxyconfig.SchemeGroupVersion.String()) {
		return fmt.Errorf("%s: want kind KubeProxyConfiguration of %s, got %s %s", o.configFile, kubeproxyconfig.SchemeGroupVersion, c.Kind, c.APIVersion)
	}
	set := func(flag string, apply func()) {
		if !cmd.Flags().Changed(flag) {
			apply()
		}
	}
	set("proxy-mode", func() { o.mode = nonEmpty(string(c.Mode), o.mode) })
	set("cluster-cidr", func() { o.clusterCIDR = nonEmpty(c.ClusterCIDR, o.clusterCIDR) })
	set("hostname-override", func() { o.hostname = nonEmpty(c.HostnameOverride, o.hostname) })
	set("min-sync-period", func() { o.minSync = nonZero(c.NFTables.MinSyncPeriod.Duration, o.minSync) })
	set("sync-period", func() { o.sync = nonZero(c.NFTables.SyncPeriod.Duration, o.sync) })
	set("nodeport-addresses", func() { o.nodePortAddresses = append(o.nodePortAddresses, c.NodePortAddresses...) })
	set("masquerade-all", func() { o.masqueradeAll = o.masqueradeAll || c.NFTables.MasqueradeAll })
	set("healthz-bind-address", func() { o.healthzAddr = nonEmpty(c.HealthzBindAddress, o.healthzAddr) })
	set("metrics-bind-address", func() { o.metricsAddr = nonEmpty(c.MetricsBindAddress, o.metricsAddr) })
	set("kubeconfig", func() { o.kubeconfig = nonEmpty(c.ClientConnection.Kubeconfig, o.kubeconfig) })
	o.modes.fromConfig(o, &c, set)
	return nil
}

func nonEmpty(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func nonZero(v, def time.Duration) time.Duration {
	if v == 0 {
		return def
	}
	return v
}

func cleanupProxy(ctx context.Context) error {
	var errs []error
	for _, fam := range []proxy.IPFamily{proxy.IPv4, proxy.IPv6} {
		nft, err := nftables.NewInterface(fam)
		if err == nil {
			err = nftables.Cleanup(ctx, nft)
		}
		errs = append(errs, err)
	}
	errs = append(errs, cleanupOtherModes(ctx))
	return errors.Join(errs...)
}

// backendConfig turns options into the nftables backend's Config.
func (o *proxyOptions) backendConfig() (nftables.Config, error) {
	cfg := nftables.Config{Family: proxy.IPv4, MasqueradeAll: o.masqueradeAll}
	for _, s := range strings.Split(o.clusterCIDR, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return cfg, fmt.Errorf("--cluster-cidr: %w", err)
		}
		if proxy.FamilyOf(p.Addr()) == proxy.IPv4 {
			cfg.ClusterCIDRs = append(cfg.ClusterCIDRs, p.Masked())
		}
	}
	for _, s := range o.nodePortAddresses {
		if s == "primary" {
			cfg.NodePortPrimary = true
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return cfg, fmt.Errorf("--nodeport-addresses: %w", err)
		}
		if proxy.FamilyOf(p.Addr()) == proxy.IPv4 {
			cfg.NodePortAddresses = append(cfg.NodePortAddresses, p.Masked())
		}
	}
	return cfg, nil
}

func runProxy(ctx context.Context, o *proxyOptions) error {
	if o.mode != "" && o.mode != "nftables" {
		return runProxyMode(ctx, o)
	}
	cfg, err := o.backendConfig()
	if err != nil {
		return err
	}
	nodeName := o.hostname
	if nodeName == "" {
		if nodeName, err = os.Hostname(); err != nil {
			return err
		}
	}
	nodeName = strings.ToLower(strings.TrimSpace(nodeName))
	rc, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: o.kubeconfig}, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return err
	}
	nft, err := nftables.NewInterface(proxy.IPv4)
	if err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	m := metrics.New(reg)
	health := healthcheck.NewProxyHealth(clock.RealClock{}, 2*o.sync)
	health.OnRequest = func(path string, code int) {
		c := m.ProxyLivezTotal
		if path == "/healthz" {
			c = m.ProxyHealthzTotal
		}
		c.WithLabelValues(healthcheck.CodeLabel(code)).Inc()
	}

	var run *runner.BoundedFrequencyRunner
	tr := tracker.New(proxy.IPv4, nodeName, func() {
		health.QueuedUpdate()
		if run != nil {
			run.Run()
		}
	})
	p := nftables.NewProxier(cfg, nft, tr.Snapshot)
	p.OnSynced = func(res nftables.SyncResult, _, cur *proxy.Snapshot, err error) {
		if err != nil {
			klog.ErrorS(err, "Sync failed; retrying with a full sync")
			return
		}
		observeSync(m, res)
		health.SetNodeDeleting(cur.Node.Deleting)
		health.Updated()
	}
	run = runner.New(p.SyncProxyRules, o.minSync, o.sync, o.minSync, clock.RealClock{})
	serve(ctx, o.healthzAddr, health.Handler())
	serve(ctx, o.metricsAddr, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	if err := tr.Start(ctx, client, tracker.Options{WatchServiceCIDRs: true}); err != nil {
		return err
	}
	klog.InfoS("Proxy started", "node", nodeName, "mode", "nftables", "table", "ip "+nftables.TableName)
	run.Loop(ctx)
	return nil
}

func observeSync(m *metrics.Metrics, res nftables.SyncResult) {
	secs := res.Duration.Seconds()
	m.SyncProxyRulesLatency.Observe(secs)
	if res.Full {
		m.SyncFullProxyRulesLatency.Observe(secs)
	} else {
		m.SyncPartialProxyRulesLatency.Observe(secs)
	}
	m.SyncProxyRulesLastTimestamp.SetToCurrentTime()
	m.SyncProxyRulesChanges.Add(float64(res.Changes))
}

// serve runs an HTTP server on addr until ctx ends ("" = off).
func serve(ctx context.Context, addr string, h http.Handler) {
	if addr == "" {
		return
	}
	if strings.HasPrefix(addr, ":") || !strings.Contains(addr, ":") {
		addr = net.JoinHostPort("0.0.0.0", strings.TrimPrefix(addr, ":"))
	}
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.ErrorS(err, "HTTP server failed", "address", addr)
		}
	}()
	go func() { <-ctx.Done(); _ = srv.Close() }()
}
