package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	logsapi "k8s.io/component-base/logs/api/v1"

	"github.com/svcplane/svcplane/internal/proxy/kubeproxyconfig"
)

// complete resolves the command line as kube-proxy's Options.Complete:
// with --config the file is the configuration, and of the flags only the
// logging ones and --hostname-override (besides --master, --cleanup,
// --init-only and --write-config-to, which are no part of it) still
// apply; without, the flags are.
func (o *proxyOptions) complete(fs *pflag.FlagSet) (*kubeproxyconfig.Settings, error) {
	var s *kubeproxyconfig.Settings
	if o.configFile != "" {
		c, err := kubeproxyconfig.Load(o.configFile)
		if err != nil {
			return nil, err
		}
		if err := copyLogsFromFlags(fs, &c.Logging); err != nil {
			return nil, err
		}
		s = kubeproxyconfig.FromFile(c)
	} else {
		if o.writeConfigTo == "" {
			o.config.HealthzBindAddress = addressFromDeprecatedFlags(o.config.HealthzBindAddress, o.healthzPort)
			o.config.MetricsBindAddress = addressFromDeprecatedFlags(o.config.MetricsBindAddress, o.metricsPort)
		}
		s = o.settingsFromFlags(fs)
	}
	s.ApplyPlatformDefaults()
	if o.hostnameOverride != "" {
		name := strings.TrimSpace(o.hostnameOverride)
		if name == "" {
			return nil, fmt.Errorf("empty hostname-override is invalid")
		}
		s.HostnameOverride = strings.ToLower(name)
	}
	return s, nil
}

// settingsFromFlags applies the flags kube-proxy keeps out of its config
// (processV1Alpha1Flags): --iptables-* periods for every mode but ipvs,
// --ipvs-* ones for ipvs. svcplane's deprecated --sync-period and
// --min-sync-period are the mode's period unless its own flag is given.
func (o *proxyOptions) settingsFromFlags(fs *pflag.FlagSet) *kubeproxyconfig.Settings {
	s := &kubeproxyconfig.Settings{KubeProxyConfiguration: o.config, MasqueradeAll: o.masqueradeAll,
		SyncPeriod: o.config.IPTables.SyncPeriod.Duration, MinSyncPeriod: o.config.IPTables.MinSyncPeriod.Duration}
	if fs.Changed("sync-period") {
		s.SyncPeriod = o.syncPeriod
	}
	if fs.Changed("min-sync-period") {
		s.MinSyncPeriod = o.minSyncPeriod
	}
	ipvs := o.config.Mode == "ipvs"
	if fs.Changed("iptables-sync-period") && !ipvs {
		s.SyncPeriod = o.iptablesSyncPeriod
	}
	if fs.Changed("iptables-min-sync-period") && !ipvs {
		s.MinSyncPeriod = o.iptablesMinSyncPeriod
	}
	if fs.Changed("ipvs-sync-period") && ipvs {
		s.SyncPeriod = o.ipvsSyncPeriod
	}
	if fs.Changed("ipvs-min-sync-period") && ipvs {
		s.MinSyncPeriod = o.ipvsMinSyncPeriod
	}
	return s
}

// addressFromDeprecatedFlags: port 0 turns the server off; otherwise a
// bare IP gets the port.
func addressFromDeprecatedFlags(addr string, port int32) string {
	if port == 0 {
		return ""
	}
	return kubeproxyconfig.AppendPortIfNeeded(addr, port)
}

// copyLogsFromFlags copies the logging flags given on the command line
// into to (a config file's logging section): flags win; --vmodule's
// entries come before the file's.
func copyLogsFromFlags(from *pflag.FlagSet, to *logsapi.LoggingConfiguration) error {
	var clone pflag.FlagSet
	logsapi.AddFlags(to, &clone)
	vmodule := to.VModule
	to.VModule = nil
	var err error
	clone.VisitAll(func(f *pflag.Flag) {
		given := from.Lookup(f.Name)
		if err != nil || given == nil || !given.Changed {
			return
		}
		if setErr := f.Value.Set(given.Value.String()); setErr != nil {
			err = fmt.Errorf("copying flag %s value: %w", f.Name, setErr)
		}
	})
	to.VModule = append(to.VModule, vmodule...)
	return err
}
