package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	componentbaseconfig "k8s.io/component-base/config/v1alpha1"
	"k8s.io/klog/v2"
	"k8s.io/kube-proxy/config/v1alpha1"
	"sigs.k8s.io/yaml"

	"github.com/svcplane/svcplane/internal/exemem"
	"github.com/svcplane/svcplane/internal/plane"
	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/app"
	"github.com/svcplane/svcplane/internal/proxy/conntrack"
	"github.com/svcplane/svcplane/internal/proxy/kubeproxyconfig"
)

func newProxyCommand() *cobra.Command {
	o := newProxyOptions()
	cmd := &cobra.Command{
		Use:   "proxy",
		Short: "Run the service proxy on this node (kube-proxy v1.36's command line: iptables, ipvs, nftables or userspace mode)",
		Long: "Run the service proxy of this node. It takes kube-proxy v1.36's flags and KubeProxyConfiguration " +
			"(--config), so a kube-proxy DaemonSet runs it by replacing the binary. Settings svcplane has no " +
			"behaviour for are accepted and, with -v=1, logged as unused.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := plane.ValidGCPercent(o.gcPercent); err != nil {
				return err
			}
			// The proxy runs a small part of the one binary: unmap what
			// the inits of all of it touched (exemem).
			released, releaseErr := exemem.ReleaseMapped()
			s, err := o.complete(cmd.Flags())
			if err != nil {
				return fmt.Errorf("failed complete: %w", err)
			}
			if err := applyLogging(s); err != nil {
				return fmt.Errorf("initialize logging: %w", err)
			}
			logUnused(s)
			klog.V(1).InfoS("Released the executable's mapped pages", "bytes", released, "err", releaseErr)
			if err := validateErr(s.Validate()); err != nil {
				return err
			}
			gc, _ := plane.ApplyGCPercent(o.gcPercent, os.Getenv)
			klog.V(1).InfoS("Garbage collector target", "percent", gc)
			// This process is the proxy alone: release memory after every
			// full sync (proxy.SetMemoryReleaseInterval).
			proxy.SetMemoryReleaseInterval(0)
			if o.writeConfigTo != "" {
				return writeKubeProxyConfiguration(o.writeConfigTo, s)
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if o.cleanup {
				return app.Cleanup(ctx)
			}
			if o.initOnly {
				// kube-proxy's privileged initialization that svcplane has:
				// the conntrack sysctls (its rules need no other).
				return conntrack.SetSysctls("/", conntrackSysctls(&s.Conntrack))
			}
			rc, err := proxyClientConfig(s.ClientConnection, o.master)
			if err != nil {
				return err
			}
			applyOOMScoreAdj(s.OOMScoreAdj)
			return runWatchingConfig(ctx, o.configFile, func(ctx context.Context) error {
				return app.RunForConfigWith(ctx, appConfig(s, o), rc, app.Deps{Settled: releaseExecutableAfterStart})
			})
		},
	}
	o.addFlags(cmd.Flags())
	_ = cmd.MarkFlagFilename("config", "yaml", "yml", "json")
	return cmd
}

// releaseExecutableAfterStart unmaps, once every family has synced, the
// executable's pages the proxy's start touched (config, client, informer
// lists, the first full sync) and no later sync needs (exemem).
func releaseExecutableAfterStart() {
	released, err := exemem.ReleaseMapped()
	klog.V(1).InfoS("Released the executable's mapped pages after the first sync", "bytes", released, "err", err)
}

// validateErr is errs as kube-proxy reports them, or nil.
func validateErr(errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("failed validate: %w", errs.ToAggregate())
}

// appConfig is what app.Run takes of s; --iptables-variant and
// --iptables-canary-interval (svcplane's own, not in the config file)
// come from the flags.
func appConfig(s *kubeproxyconfig.Settings, o *proxyOptions) app.Config {
	cfg := app.Defaults()
	cfg.Mode = string(s.Mode)
	cfg.ClusterCIDR = s.ClusterCIDR
	cfg.HostnameOverride = s.HostnameOverride
	cfg.SyncPeriod, cfg.MinSyncPeriod = s.SyncPeriod, s.MinSyncPeriod
	cfg.NodePortAddresses = s.NodePortAddresses
	cfg.MasqueradeAll = s.MasqueradeAll
	cfg.HealthzBindAddress, cfg.MetricsBindAddress = s.HealthzBindAddress, s.MetricsBindAddress
	cfg.EnableProfiling = s.EnableProfiling
	if s.IPVS.Scheduler != "" {
		cfg.IPVSScheduler = s.IPVS.Scheduler
	}
	cfg.IPTablesVariant = o.iptablesVariant
	cfg.CanaryInterval = o.canaryInterval
	cfg.ConfigSyncPeriod = s.ConfigSyncPeriod.Duration
	ct := conntrackSysctls(&s.Conntrack)
	cfg.Conntrack = &ct
	return cfg
}

// conntrackSysctls is the conntrack section, which kube-proxy applies at
// every start (nil pointers, as after defaulting never, leave the kernel's).
func conntrackSysctls(c *v1alpha1.KubeProxyConntrackConfiguration) conntrack.Sysctls {
	s := conntrack.Sysctls{TCPBeLiberal: c.TCPBeLiberal, UDPTimeout: c.UDPTimeout.Duration, UDPStreamTimeout: c.UDPStreamTimeout.Duration}
	if c.MaxPerCore != nil {
		s.MaxPerCore = *c.MaxPerCore
	}
	if c.Min != nil {
		s.Min = *c.Min
	}
	if c.TCPEstablishedTimeout != nil {
		s.TCPEstablishedTimeout = c.TCPEstablishedTimeout.Duration
	}
	if c.TCPCloseWaitTimeout != nil {
		s.TCPCloseWaitTimeout = c.TCPCloseWaitTimeout.Duration
	}
	return s
}

// applyOOMScoreAdj sets the process's oom_score_adj as kube-proxy does
// when it starts; a failure is only logged (at V(2), as upstream).
func applyOOMScoreAdj(v *int32) {
	if v == nil {
		return
	}
	if err := os.WriteFile("/proc/self/oom_score_adj", []byte(strconv.Itoa(int(*v))), 0o644); err != nil {
		klog.V(2).InfoS("Failed to apply OOMScore", "err", err)
	}
}

// proxyClientConfig is kube-proxy's API client: the kubeconfig with
// --master over its server (neither: in-cluster), with the connection's
// content types, QPS and burst.
func proxyClientConfig(cc componentbaseconfig.ClientConnectionConfiguration, master string) (*rest.Config, error) {
	var rc *rest.Config
	var err error
	if cc.Kubeconfig == "" && master == "" {
		klog.InfoS("Neither kubeconfig file nor master URL was specified, falling back to in-cluster config")
		rc, err = rest.InClusterConfig()
	} else {
		rc, err = clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
			&clientcmd.ClientConfigLoadingRules{ExplicitPath: cc.Kubeconfig},
			&clientcmd.ConfigOverrides{ClusterInfo: clientcmdapi.Cluster{Server: master}}).ClientConfig()
	}
	if err != nil {
		return nil, err
	}
	rc.AcceptContentTypes = cc.AcceptContentTypes
	rc.ContentType = cc.ContentType
	rc.QPS = cc.QPS
	rc.Burst = int(cc.Burst)
	return rc, nil
}

// writeKubeProxyConfiguration writes s as a v1alpha1 file (--write-config-to).
func writeKubeProxyConfiguration(path string, s *kubeproxyconfig.Settings) error {
	c := s.Versioned()
	data, err := yaml.Marshal(&c)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	klog.InfoS("Wrote configuration", "file", path)
	return nil
}
