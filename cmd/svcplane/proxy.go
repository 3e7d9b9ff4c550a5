package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"
	kubeproxyconfig "k8s.io/kube-proxy/config/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/svcplane/svcplane/internal/proxy/app"
)

// proxyOptions are kube-proxy's flags that svcplane honours, with
// kube-proxy's defaults.
type proxyOptions struct {
	kubeconfig, configFile string
	cleanup                bool
	app.Config
}

func newProxyOptions() *proxyOptions { return &proxyOptions{Config: app.Defaults()} }

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
				return app.Cleanup(ctx)
			}
			rc, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
				&clientcmd.ClientConfigLoadingRules{ExplicitPath: o.kubeconfig}, &clientcmd.ConfigOverrides{}).ClientConfig()
			if err != nil {
				return err
			}
			return app.RunForConfig(ctx, o.Config, rc)
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
	f.StringVar(&o.Mode, "proxy-mode", o.Mode, "Proxy mode: nftables, iptables, ipvs (falls back to iptables without kernel IPVS) or userspace.")
	f.StringVar(&o.ClusterCIDR, "cluster-cidr", "", "Pod CIDRs (comma-separated); traffic to a ClusterIP from outside is masqueraded.")
	f.StringVar(&o.HostnameOverride, "hostname-override", "", "Node name to use instead of the hostname.")
	f.DurationVar(&o.MinSyncPeriod, "min-sync-period", o.MinSyncPeriod, "Minimum interval between rule syncs.")
	f.DurationVar(&o.SyncPeriod, "sync-period", o.SyncPeriod, "Interval of full rule resyncs.")
	f.StringSliceVar(&o.NodePortAddresses, "nodeport-addresses", nil, "CIDRs (or \"primary\") NodePorts are accepted on; empty: all local addresses.")
	f.BoolVar(&o.MasqueradeAll, "masquerade-all", false, "Masquerade all Service traffic.")
	f.StringVar(&o.HealthzBindAddress, "healthz-bind-address", o.HealthzBindAddress, "Address:port of /healthz and /livez (empty: off).")
	f.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress, "Address:port of /metrics (empty: off).")
	f.BoolVar(&o.cleanup, "cleanup", false, "Remove everything the proxy installed and exit.")
	f.StringVar(&o.IPTablesVariant, "iptables-variant", "", "iptables and ipvs modes: legacy or nft tools (empty: whatever `iptables` is).")
	f.StringVar(&o.IPVSScheduler, "ipvs-scheduler", o.IPVSScheduler, "ipvs and userspace modes: rr, wrr, lc, wlc, lblc, lblcr, sh, dh, sed, nq or mh.")
	f.DurationVar(&o.CanaryInterval, "iptables-canary-interval", o.CanaryInterval, "iptables mode: how often the canary chains are checked for a flush.")
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
	set("proxy-mode", func() { o.Mode = nonEmpty(string(c.Mode), o.Mode) })
	set("cluster-cidr", func() { o.ClusterCIDR = nonEmpty(c.ClusterCIDR, o.ClusterCIDR) })
	set("hostname-override", func() { o.HostnameOverride = nonEmpty(c.HostnameOverride, o.HostnameOverride) })
	set("min-sync-period", func() { o.MinSyncPeriod = nonZero(c.NFTables.MinSyncPeriod.Duration, o.MinSyncPeriod) })
	set("sync-period", func() { o.SyncPeriod = nonZero(c.NFTables.SyncPeriod.Duration, o.SyncPeriod) })
	set("nodeport-addresses", func() { o.NodePortAddresses = append(o.NodePortAddresses, c.NodePortAddresses...) })
	set("masquerade-all", func() { o.MasqueradeAll = o.MasqueradeAll || c.NFTables.MasqueradeAll })
	set("healthz-bind-address", func() { o.HealthzBindAddress = nonEmpty(c.HealthzBindAddress, o.HealthzBindAddress) })
	set("metrics-bind-address", func() { o.MetricsBindAddress = nonEmpty(c.MetricsBindAddress, o.MetricsBindAddress) })
	set("kubeconfig", func() { o.kubeconfig = nonEmpty(c.ClientConnection.Kubeconfig, o.kubeconfig) })
	o.modeConfig(&c, set)
	return nil
}

// modeConfig reads the mode-specific parts of a KubeProxyConfiguration:
// the iptables or ipvs sync periods (instead of the nftables ones), the
// IPVS scheduler and masqueradeAll.
func (o *proxyOptions) modeConfig(c *kubeproxyconfig.KubeProxyConfiguration, set func(string, func())) {
	set("ipvs-scheduler", func() { o.IPVSScheduler = nonEmpty(c.IPVS.Scheduler, o.IPVSScheduler) })
	var minSync, sync time.Duration
	var masqAll bool
	switch o.Mode {
	case app.ModeIPTables:
		minSync, sync, masqAll = c.IPTables.MinSyncPeriod.Duration, c.IPTables.SyncPeriod.Duration, c.IPTables.MasqueradeAll
	case app.ModeIPVS:
		minSync, sync, masqAll = c.IPVS.MinSyncPeriod.Duration, c.IPVS.SyncPeriod.Duration, c.IPTables.MasqueradeAll
	default:
		return
	}
	set("min-sync-period", func() { o.MinSyncPeriod = nonZero(minSync, o.MinSyncPeriod) })
	set("sync-period", func() { o.SyncPeriod = nonZero(sync, o.SyncPeriod) })
	set("masquerade-all", func() { o.MasqueradeAll = o.MasqueradeAll || masqAll })
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
