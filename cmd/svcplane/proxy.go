package main

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	kubeproxyconfig "k8s.io/kube-proxy/config/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/nftables"
)

// proxyOptions are kube-proxy's settings that svcplane honours, with
// kube-proxy's defaults.
type proxyOptions struct {
	kubeconfig, configFile, mode, clusterCIDR, hostname string
	minSync, sync                                       time.Duration
	nodePortAddresses                                   []string
	masqueradeAll, cleanup                              bool
	healthzAddr, metricsAddr                            string
	// modes holds the iptables, ipvs and userspace settings.
	modes modeOptions

	// deps are the proxy's I/O (real by default; tests swap them).
	deps proxyDeps
}

// newProxyOptions returns kube-proxy's defaults.
func newProxyOptions() *proxyOptions {
	return &proxyOptions{mode: "nftables", minSync: time.Second, sync: 30 * time.Second,
		healthzAddr: "0.0.0.0:10256", metricsAddr: "127.0.0.1:10249",
		modes: modeOptions{ipvsScheduler: "rr", canaryInterval: time.Minute}}
}

func newProxyCommand() *cobra.Command {
	o := newProxyOptions()
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
	o.addFlags(cmd)
	return cmd
}

// addFlags declares kube-proxy's flags on cmd, bound to o.
func (o *proxyOptions) addFlags(cmd *cobra.Command) {
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
		return fmt.Errorf("%s: not a valid KubeProxyConfiguration: %w", o.configFile, err)
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

// clusterCIDRs parses --cluster-cidr.
func (o *proxyOptions) clusterCIDRs() ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range strings.Split(o.clusterCIDR, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("--cluster-cidr: %w", err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// modeConfig turns options into one family's backend settings.
func (o *proxyOptions) modeConfig(family proxy.IPFamily) (modeConfig, error) {
	cfg := modeConfig{Family: family, MasqueradeAll: o.masqueradeAll}
	cidrs, err := o.clusterCIDRs()
	if err != nil {
		return cfg, err
	}
	for _, p := range cidrs {
		if proxy.FamilyOf(p.Addr()) == family {
			cfg.ClusterCIDRs = append(cfg.ClusterCIDRs, p)
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
		if proxy.FamilyOf(p.Addr()) == family {
			cfg.NodePortAddresses = append(cfg.NodePortAddresses, p.Masked())
		}
	}
	return cfg, nil
}
