package main

import (
	"fmt"
	"net"
	"time"

	"github.com/spf13/pflag"
	cliflag "k8s.io/component-base/cli/flag"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/kube-proxy/config/v1alpha1"
	netutils "k8s.io/utils/net"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/kubeproxyconfig"
)

// proxyOptions is kube-proxy v1.36's command line. As upstream, the flags
// are bound to a defaulted KubeProxyConfiguration (config), except those
// that have no one field in it (their placeholders below); complete turns
// flags or the --config file into the configuration that runs.
type proxyOptions struct {
	configFile, writeConfigTo string
	cleanup, initOnly         bool
	master                    string
	hostnameOverride          string
	// healthzPort and metricsPort: the deprecated --healthz-port and
	// --metrics-port.
	healthzPort, metricsPort int32
	// The flags whose config field depends on the mode.
	iptablesSyncPeriod, iptablesMinSyncPeriod time.Duration
	ipvsSyncPeriod, ipvsMinSyncPeriod         time.Duration
	masqueradeAll                             bool
	// svcplane's own: --sync-period and --min-sync-period (deprecated
	// aliases of the mode's periods), --iptables-variant and
	// --iptables-canary-interval.
	syncPeriod, minSyncPeriod time.Duration
	iptablesVariant           string
	canaryInterval            time.Duration
	// gcPercent: svcplane's --gc-percent.
	gcPercent int

	config v1alpha1.KubeProxyConfiguration
}

func newProxyOptions() *proxyOptions {
	o := &proxyOptions{healthzPort: 10256, metricsPort: 10249, canaryInterval: time.Minute, gcPercent: proxy.DefaultGCPercent}
	kubeproxyconfig.SetDefaults(&o.config)
	// kube-proxy's flag defaults come from the config's defaults with mode
	// "", i.e. iptables'.
	o.iptablesSyncPeriod, o.iptablesMinSyncPeriod = o.config.IPTables.SyncPeriod.Duration, o.config.IPTables.MinSyncPeriod.Duration
	o.ipvsSyncPeriod, o.ipvsMinSyncPeriod = o.iptablesSyncPeriod, o.iptablesMinSyncPeriod
	o.syncPeriod, o.minSyncPeriod = o.iptablesSyncPeriod, o.iptablesMinSyncPeriod
	return o
}

// addFlags declares every kube-proxy v1.36 flag (upstream's names, types
// and defaults) plus svcplane's own on fs.
func (o *proxyOptions) addFlags(fs *pflag.FlagSet) {
	o.addGeneralFlags(fs)
	o.addModeFlags(fs)
	o.addConntrackFlags(fs)
	o.addSvcplaneFlags(fs)
	addLogFormats()
	logsapi.AddFlags(&o.config.Logging, fs)
}

const ignoredWithConfig = " Ignored when --config is given."

func (o *proxyOptions) addGeneralFlags(fs *pflag.FlagSet) {
	c := &o.config
	fs.StringVar(&o.configFile, "config", o.configFile, "Path of a KubeProxyConfiguration (kubeproxy.config.k8s.io/v1alpha1) file. When given, it wins over every flag except --hostname-override, the logging flags, --master, --cleanup, --init-only and --write-config-to.")
	fs.StringVar(&o.writeConfigTo, "write-config-to", o.writeConfigTo, "Write the configuration (defaults and flags) to this file and exit.")
	fs.BoolVar(&o.cleanup, "cleanup", o.cleanup, "Remove the rules of every proxy mode and exit.")
	fs.BoolVar(&o.initOnly, "init-only", o.initOnly, "Do the initialization that needs full root privileges (the conntrack sysctls), then exit.")
	fs.Var(cliflag.NewMapStringBool(&c.FeatureGates), "feature-gates", "key=value pairs of feature gates. svcplane applies the logging ones (LoggingAlphaOptions, LoggingBetaOptions, ContextualLogging) and accepts the others."+ignoredWithConfig)
	fs.StringVar(&c.ClientConnection.Kubeconfig, "kubeconfig", c.ClientConnection.Kubeconfig, "Path of a kubeconfig (with --master empty too: the in-cluster config).")
	fs.StringVar(&o.master, "master", o.master, "The API server's address; overrides the kubeconfig's.")
	fs.StringVar(&c.ClientConnection.ContentType, "kube-api-content-type", c.ClientConnection.ContentType, "Content type of requests to the API server.")
	fs.Int32Var(&c.ClientConnection.Burst, "kube-api-burst", c.ClientConnection.Burst, "Burst of requests to the API server.")
	fs.Float32Var(&c.ClientConnection.QPS, "kube-api-qps", c.ClientConnection.QPS, "Queries per second to the API server.")
	fs.StringVar(&o.hostnameOverride, "hostname-override", o.hostnameOverride, "The name of this node's Node (default: the host name). Wins over the config file's hostnameOverride.")
	fs.Var(&ipVar{&c.BindAddress}, "bind-address", "The node's primary IP (the name is historical: nothing binds to it; svcplane takes the node's IPs from its Node)."+ignoredWithConfig)
	fs.Var(&ipPortVar{&c.HealthzBindAddress}, "healthz-bind-address", "IP and port (or IP: port 10256) of /healthz and /livez."+ignoredWithConfig)
	fs.Var(&ipPortVar{&c.MetricsBindAddress}, "metrics-bind-address", "IP and port (or IP: port 10249) of /metrics and /proxyMode."+ignoredWithConfig)
	fs.BoolVar(&c.BindAddressHardFail, "bind-address-hard-fail", c.BindAddressHardFail, "Treat a failure to bind a port as fatal (svcplane: unused).")
	fs.BoolVar(&c.EnableProfiling, "profiling", c.EnableProfiling, "Serve /debug/pprof on the metrics address."+ignoredWithConfig)
	fs.StringVar(&c.ShowHiddenMetricsForVersion, "show-hidden-metrics-for-version", c.ShowHiddenMetricsForVersion, "The previous minor version (<major>.<minor>) whose hidden metrics to show (svcplane: unused)."+ignoredWithConfig)
	fs.DurationVar(&c.ConfigSyncPeriod.Duration, "config-sync-period", c.ConfigSyncPeriod.Duration, "Resync period of the informers of Services, EndpointSlices and the Node. Must be greater than 0.")
	fs.Int32Var(&o.healthzPort, "healthz-port", o.healthzPort, "Port of the health server; 0 disables it.")
	_ = fs.MarkDeprecated("healthz-port", "This flag is deprecated and will be removed in a future release. Please use --healthz-bind-address instead.")
	fs.Int32Var(&o.metricsPort, "metrics-port", o.metricsPort, "Port of the metrics server; 0 disables it.")
	_ = fs.MarkDeprecated("metrics-port", "This flag is deprecated and will be removed in a future release. Please use --metrics-bind-address instead.")
}

func (o *proxyOptions) addModeFlags(fs *pflag.FlagSet) {
	c := &o.config
	fs.Var((*proxyModeVar)(&c.Mode), "proxy-mode", "Proxy mode: iptables (default), ipvs, nftables, or svcplane's userspace."+ignoredWithConfig)
	fs.Int32Var(c.IPTables.MasqueradeBit, "iptables-masquerade-bit", *c.IPTables.MasqueradeBit, "iptables and ipvs modes: the fwmark bit [0, 31] of packets to SNAT (svcplane: unused).")
	fs.BoolVar(&o.masqueradeAll, "masquerade-all", o.masqueradeAll, "SNAT all traffic sent to Service cluster IPs.")
	fs.BoolVar(c.IPTables.LocalhostNodePorts, "iptables-localhost-nodeports", *c.IPTables.LocalhostNodePorts, "iptables mode, IPv4: accept NodePorts on localhost (svcplane never does).")
	fs.DurationVar(&o.iptablesSyncPeriod, "iptables-sync-period", o.iptablesSyncPeriod, "iptables and nftables modes: interval of full resyncs and cleanups. Must be greater than 0.")
	fs.DurationVar(&o.iptablesMinSyncPeriod, "iptables-min-sync-period", o.iptablesMinSyncPeriod, "iptables and nftables modes: minimum interval between rule syncs; 0 syncs on every change.")
	fs.DurationVar(&o.ipvsSyncPeriod, "ipvs-sync-period", o.ipvsSyncPeriod, "ipvs mode: interval of full resyncs and cleanups. Must be greater than 0.")
	fs.DurationVar(&o.ipvsMinSyncPeriod, "ipvs-min-sync-period", o.ipvsMinSyncPeriod, "ipvs mode: minimum interval between rule syncs; 0 syncs on every change.")
	fs.StringVar(&c.IPVS.Scheduler, "ipvs-scheduler", c.IPVS.Scheduler, "ipvs (and svcplane's userspace) mode: rr (default), wrr, lc, wlc, lblc, lblcr, sh, dh, sed, nq or mh.")
	fs.StringSliceVar(&c.IPVS.ExcludeCIDRs, "ipvs-exclude-cidrs", c.IPVS.ExcludeCIDRs, "ipvs mode: CIDRs whose IPVS rules cleanup leaves alone (svcplane: unused).")
	fs.BoolVar(&c.IPVS.StrictARP, "ipvs-strict-arp", c.IPVS.StrictARP, "ipvs mode: set arp_ignore 1 and arp_announce 2 (svcplane: unused).")
	fs.DurationVar(&c.IPVS.TCPTimeout.Duration, "ipvs-tcp-timeout", c.IPVS.TCPTimeout.Duration, "ipvs mode: idle TCP timeout, 0 leaves it (svcplane: unused).")
	fs.DurationVar(&c.IPVS.TCPFinTimeout.Duration, "ipvs-tcpfin-timeout", c.IPVS.TCPFinTimeout.Duration, "ipvs mode: TCP timeout after a FIN, 0 leaves it (svcplane: unused).")
	fs.DurationVar(&c.IPVS.UDPTimeout.Duration, "ipvs-udp-timeout", c.IPVS.UDPTimeout.Duration, "ipvs mode: UDP timeout, 0 leaves it (svcplane: unused).")
	fs.Var((*localModeVar)(&c.DetectLocalMode), "detect-local-mode", "How local traffic is detected (svcplane: ClusterCIDR only)."+ignoredWithConfig)
	fs.StringVar(&c.DetectLocal.BridgeInterface, "pod-bridge-interface", c.DetectLocal.BridgeInterface, "detect-local-mode BridgeInterface: the pods' bridge (svcplane: unused).")
	fs.StringVar(&c.DetectLocal.InterfaceNamePrefix, "pod-interface-name-prefix", c.DetectLocal.InterfaceNamePrefix, "detect-local-mode InterfaceNamePrefix: the pods' interface prefix (svcplane: unused).")
	fs.StringVar(&c.ClusterCIDR, "cluster-cidr", c.ClusterCIDR, "The pods' CIDRs (a dual-stack pair comma-separated): traffic to a cluster IP from outside them is masqueraded."+ignoredWithConfig)
	fs.StringSliceVar(&c.NodePortAddresses, "nodeport-addresses", c.NodePortAddresses, "CIDRs of the node IPs NodePorts are accepted on, or 'primary' (the Node's primary IPs). Unset: every local IP (nftables mode: primary)."+ignoredWithConfig)
	fs.Int32Var(c.OOMScoreAdj, "oom-score-adj", *c.OOMScoreAdj, "oom_score_adj of the process, [-1000, 1000]."+ignoredWithConfig)
}

func (o *proxyOptions) addConntrackFlags(fs *pflag.FlagSet) {
	ct := &o.config.Conntrack
	fs.Int32Var(ct.MaxPerCore, "conntrack-max-per-core", *ct.MaxPerCore, "nf_conntrack_max per CPU (at least --conntrack-min); 0 leaves the limit and ignores --conntrack-min.")
	fs.Int32Var(ct.Min, "conntrack-min", *ct.Min, "Minimum nf_conntrack_max, whatever --conntrack-max-per-core gives.")
	fs.DurationVar(&ct.TCPEstablishedTimeout.Duration, "conntrack-tcp-timeout-established", ct.TCPEstablishedTimeout.Duration, "Idle timeout of established TCP connections, 0 leaves it.")
	fs.DurationVar(&ct.TCPCloseWaitTimeout.Duration, "conntrack-tcp-timeout-close-wait", ct.TCPCloseWaitTimeout.Duration, "Timeout of TCP connections in CLOSE_WAIT, 0 leaves it.")
	fs.BoolVar(&ct.TCPBeLiberal, "conntrack-tcp-be-liberal", ct.TCPBeLiberal, "Set nf_conntrack_tcp_be_liberal to 1.")
	fs.DurationVar(&ct.UDPTimeout.Duration, "conntrack-udp-timeout", ct.UDPTimeout.Duration, "Idle timeout of UNREPLIED UDP flows, 0 leaves it.")
	fs.DurationVar(&ct.UDPStreamTimeout.Duration, "conntrack-udp-timeout-stream", ct.UDPStreamTimeout.Duration, "Idle timeout of ASSURED UDP flows, 0 leaves it.")
}

// svcplaneProxyFlags are the flags of `svcplane proxy` that kube-proxy
// does not have.
var svcplaneProxyFlags = []string{"sync-period", "min-sync-period", "iptables-variant", "iptables-canary-interval", "gc-percent"}

func (o *proxyOptions) addSvcplaneFlags(fs *pflag.FlagSet) {
	fs.DurationVar(&o.syncPeriod, "sync-period", o.syncPeriod, "The mode's sync period (--iptables-sync-period or --ipvs-sync-period).")
	_ = fs.MarkDeprecated("sync-period", "use --iptables-sync-period (iptables and nftables modes) or --ipvs-sync-period (ipvs mode)")
	fs.DurationVar(&o.minSyncPeriod, "min-sync-period", o.minSyncPeriod, "The mode's minimum sync period (--iptables-min-sync-period or --ipvs-min-sync-period).")
	_ = fs.MarkDeprecated("min-sync-period", "use --iptables-min-sync-period (iptables and nftables modes) or --ipvs-min-sync-period (ipvs mode)")
	fs.StringVar(&o.iptablesVariant, "iptables-variant", o.iptablesVariant, "svcplane: iptables and ipvs modes: legacy or nft tools (empty: whatever the iptables command is).")
	fs.DurationVar(&o.canaryInterval, "iptables-canary-interval", o.canaryInterval, "svcplane: iptables mode: how often the canary chains are checked for a flush.")
	fs.IntVar(&o.gcPercent, "gc-percent", o.gcPercent, "svcplane: Go garbage collector target of this process when the GOGC environment variable is unset (GOGC wins): the heap grows to live × (1 + N/100) before a collection. Lower: less memory, more CPU in the collector. The Go runtime's own default is 100. Applies with --config too.")
}

// ipVar is an IP flag (kube-proxy's type "ip"): setting it to "" leaves
// the value as it was, as upstream's.
type ipVar struct{ val *string }

func (v *ipVar) Set(s string) error {
	if s == "" {
		return nil
	}
	if netutils.ParseIPSloppy(s) == nil {
		return fmt.Errorf("%q is not a valid IP address", s)
	}
	*v.val = s
	return nil
}
func (v *ipVar) String() string { return *v.val }
func (v *ipVar) Type() string   { return "ip" }

// ipPortVar is an "ip" or "ip:port" flag (kube-proxy's type "ipport");
// setting it to "" leaves the value as it was, as upstream's (so an empty
// --metrics-bind-address does not disable the server: --metrics-port=0 does).
type ipPortVar struct{ val *string }

func (v *ipPortVar) Set(s string) error {
	if s == "" {
		return nil
	}
	if netutils.ParseIPSloppy(s) != nil {
		*v.val = s
		return nil
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf("%q is not in a valid format (ip or ip:port): %v", s, err)
	}
	if netutils.ParseIPSloppy(host) == nil {
		return fmt.Errorf("%q is not a valid IP address", host)
	}
	if _, err := netutils.ParsePort(port, true); err != nil {
		return fmt.Errorf("%q is not a valid number", port)
	}
	*v.val = s
	return nil
}
func (v *ipPortVar) String() string { return *v.val }
func (v *ipPortVar) Type() string   { return "ipport" }

type proxyModeVar v1alpha1.ProxyMode

func (m *proxyModeVar) Set(s string) error { *m = proxyModeVar(s); return nil }
func (m *proxyModeVar) String() string     { return string(*m) }
func (m *proxyModeVar) Type() string       { return "ProxyMode" }

type localModeVar v1alpha1.LocalMode

func (m *localModeVar) Set(s string) error { *m = localModeVar(s); return nil }
func (m *localModeVar) String() string     { return string(*m) }
func (m *localModeVar) Type() string       { return "LocalMode" }
