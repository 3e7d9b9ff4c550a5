package main

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/conntrack"
	"github.com/svcplane/svcplane/internal/proxy/kubeproxyconfig"
)

// parseProxy parses args as `svcplane proxy` does, with config (if any)
// written to a file passed as --config, and completes them.
func parseProxy(t *testing.T, config string, args ...string) (*proxyOptions, *kubeproxyconfig.Settings, error) {
	t.Helper()
	o := newProxyOptions()
	fs := pflag.NewFlagSet("proxy", pflag.ContinueOnError)
	o.addFlags(fs)
	if config != "" {
		path := filepath.Join(t.TempDir(), "config.conf")
		if err := os.WriteFile(path, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append(args, "--config="+path)
	}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	s, err := o.complete(fs)
	return o, s, err
}

func mustParseProxy(t *testing.T, config string, args ...string) *kubeproxyconfig.Settings {
	t.Helper()
	_, s, err := parseProxy(t, config, args...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestProxyFlagsAreKubeProxys checks that `svcplane proxy` declares every
// kube-proxy v1.36 flag with its type, and no other flag than svcplane's
// own (testdata/kube-proxy-1.36-flags.golden says how the list was made).
func TestProxyFlagsAreKubeProxys(t *testing.T) {
	f, err := os.Open("testdata/kube-proxy-1.36-flags.golden")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want := map[string]string{} // name → the FlagSet method upstream declares it with
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			name, method, _ := strings.Cut(line, " ")
			want[name] = method
		}
	}
	if len(want) < 50 {
		t.Fatalf("golden file has %d flags", len(want))
	}
	methodType := map[string]string{"StringVar": "string", "BoolVar": "bool", "DurationVar": "duration",
		"Int32Var": "int32", "Float32Var": "float32", "StringSliceVar": "stringSlice"}
	// The pflag.Value types of upstream's Var flags.
	varType := map[string]string{"feature-gates": "mapStringBool", "bind-address": "ip", "healthz-bind-address": "ipport",
		"metrics-bind-address": "ipport", "proxy-mode": "ProxyMode", "detect-local-mode": "LocalMode", "v": "Level",
		"vmodule": "pattern=N,...", "log-text-info-buffer-size": "quantity", "log-json-info-buffer-size": "quantity"}

	o := newProxyOptions()
	fs := pflag.NewFlagSet("proxy", pflag.ContinueOnError)
	o.addFlags(fs)
	got := map[string]*pflag.Flag{}
	fs.VisitAll(func(fl *pflag.Flag) { got[fl.Name] = fl })
	for name, method := range want {
		fl := got[name]
		if fl == nil {
			t.Errorf("kube-proxy flag --%s missing", name)
			continue
		}
		typ, ok := methodType[method]
		if !ok {
			typ = varType[name]
		}
		if fl.Value.Type() != typ {
			t.Errorf("--%s has type %q, kube-proxy's is %q", name, fl.Value.Type(), typ)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok && !slices.Contains(svcplaneProxyFlags, name) {
			t.Errorf("--%s is neither kube-proxy's nor in svcplaneProxyFlags", name)
		}
	}
}

func TestProxyFlagDefaults(t *testing.T) {
	s := mustParseProxy(t, "")
	if s.Mode != "iptables" || s.SyncPeriod != 30*time.Second || s.MinSyncPeriod != time.Second ||
		s.HealthzBindAddress != "0.0.0.0:10256" || s.MetricsBindAddress != "127.0.0.1:10249" ||
		s.ClientConnection.ContentType != "application/vnd.kubernetes.protobuf" || s.ClientConnection.QPS != 5 ||
		s.ClientConnection.Burst != 10 || s.NodePortAddresses != nil || s.DetectLocalMode != "ClusterCIDR" || s.MasqueradeAll {
		t.Errorf("defaults differ from kube-proxy's: %+v", s)
	}
	o := newProxyOptions()
	cfg := appConfig(s, o)
	if cfg.Mode != "iptables" || cfg.IPVSScheduler != "rr" || cfg.CanaryInterval != time.Minute {
		t.Errorf("app config %+v", cfg)
	}
}

func TestProxyFlags(t *testing.T) {
	s := mustParseProxy(t, "", "--proxy-mode=iptables", "--iptables-sync-period=1m", "--iptables-min-sync-period=0",
		"--cluster-cidr=10.244.0.0/16,fd00:10:244::/56", "--hostname-override= Node-A ", "--masquerade-all",
		"--nodeport-addresses=192.168.0.0/16,primary", "--healthz-bind-address=127.0.0.1", "--metrics-bind-address=0.0.0.0:20249",
		"--kubeconfig=/k", "--kube-api-qps=50", "--kube-api-burst=100", "--kube-api-content-type=application/json", "--profiling", "--config-sync-period=1h")
	if s.SyncPeriod != time.Minute || s.MinSyncPeriod != 0 || s.ClusterCIDR != "10.244.0.0/16,fd00:10:244::/56" ||
		s.HostnameOverride != "node-a" || !s.MasqueradeAll || !slices.Equal(s.NodePortAddresses, []string{"192.168.0.0/16", "primary"}) ||
		s.HealthzBindAddress != "127.0.0.1:10256" || s.MetricsBindAddress != "0.0.0.0:20249" || s.ClientConnection.Kubeconfig != "/k" ||
		s.ClientConnection.QPS != 50 || s.ClientConnection.Burst != 100 || s.ClientConnection.ContentType != "application/json" || !s.EnableProfiling {
		t.Errorf("flags not applied: %+v", s)
	}
	cfg := appConfig(s, newProxyOptions())
	if cfg.SyncPeriod != time.Minute || cfg.MinSyncPeriod != 0 || !cfg.MasqueradeAll || cfg.HostnameOverride != "node-a" || !cfg.EnableProfiling ||
		cfg.ConfigSyncPeriod != time.Hour {
		t.Errorf("app config %+v", cfg)
	}
}

func TestProxyConntrackFlags(t *testing.T) {
	s := mustParseProxy(t, "", "--conntrack-max-per-core=0", "--conntrack-tcp-be-liberal", "--conntrack-udp-timeout=10s",
		"--conntrack-udp-timeout-stream=2m", "--conntrack-tcp-timeout-close-wait=0")
	got := *appConfig(s, newProxyOptions()).Conntrack
	want := conntrack.Sysctls{Min: 131072, TCPEstablishedTimeout: 24 * time.Hour, TCPBeLiberal: true,
		UDPTimeout: 10 * time.Second, UDPStreamTimeout: 2 * time.Minute}
	if got != want {
		t.Errorf("conntrack %+v, want %+v", got, want)
	}
}

// TestProxyModeSyncPeriodFlags: as kube-proxy, the --iptables-* periods
// are every mode's but ipvs', the --ipvs-* ones ipvs'; svcplane's
// deprecated --sync-period/--min-sync-period are the mode's.
func TestProxyModeSyncPeriodFlags(t *testing.T) {
	for _, tc := range []struct {
		args          []string
		sync, minSync time.Duration
	}{
		{[]string{"--proxy-mode=ipvs", "--iptables-sync-period=5s", "--iptables-min-sync-period=5s"}, 30 * time.Second, time.Second},
		{[]string{"--proxy-mode=ipvs", "--ipvs-sync-period=5s", "--ipvs-min-sync-period=2s"}, 5 * time.Second, 2 * time.Second},
		{[]string{"--proxy-mode=nftables", "--ipvs-sync-period=5s", "--iptables-min-sync-period=3s"}, 30 * time.Second, 3 * time.Second},
		{[]string{"--proxy-mode=iptables", "--ipvs-sync-period=5s", "--iptables-sync-period=7s"}, 7 * time.Second, time.Second},
		{[]string{"--sync-period=9s", "--min-sync-period=4s"}, 9 * time.Second, 4 * time.Second},
		{[]string{"--proxy-mode=ipvs", "--sync-period=9s", "--ipvs-sync-period=8s"}, 8 * time.Second, time.Second},
	} {
		s := mustParseProxy(t, "", tc.args...)
		if s.SyncPeriod != tc.sync || s.MinSyncPeriod != tc.minSync {
			t.Errorf("%v: sync %v min %v, want %v %v", tc.args, s.SyncPeriod, s.MinSyncPeriod, tc.sync, tc.minSync)
		}
	}
}

func TestProxyDeprecatedPortFlags(t *testing.T) {
	s := mustParseProxy(t, "", "--healthz-port=0", "--metrics-bind-address=127.0.0.2", "--metrics-port=9999")
	if s.HealthzBindAddress != "" || s.MetricsBindAddress != "127.0.0.2:9999" {
		t.Errorf("healthz %q metrics %q", s.HealthzBindAddress, s.MetricsBindAddress)
	}
	// As upstream, an empty --metrics-bind-address leaves the default.
	if s := mustParseProxy(t, "", "--metrics-bind-address="); s.MetricsBindAddress != "127.0.0.1:10249" {
		t.Errorf("metrics %q", s.MetricsBindAddress)
	}
}

func TestProxyFlagValidation(t *testing.T) {
	for _, args := range [][]string{{"--bind-address=nope"}, {"--healthz-bind-address=1.2.3.4:x"}, {"--metrics-bind-address=host:1"}} {
		fs := pflag.NewFlagSet("proxy", pflag.ContinueOnError)
		fs.SetOutput(new(strings.Builder))
		newProxyOptions().addFlags(fs)
		if err := fs.Parse(args); err == nil {
			t.Errorf("%v: accepted", args)
		}
	}
	if _, _, err := parseProxy(t, "", "--hostname-override=  "); err == nil || !strings.Contains(err.Error(), "empty hostname-override is invalid") {
		t.Errorf("blank --hostname-override: %v", err)
	}
}

func TestProxyUnusedSettings(t *testing.T) {
	fields := func(args ...string) []string {
		var out []string
		for _, u := range unusedSettings(mustParseProxy(t, "", args...)) {
			out = append(out, u.field)
		}
		return out
	}
	if got := fields("--proxy-mode=nftables"); len(got) != 0 {
		t.Errorf("defaults: unused %v", got)
	}
	if got := fields(); !slices.Equal(got, []string{"iptables.localhostNodePorts"}) {
		t.Errorf("iptables defaults: unused %v", got)
	}
	if got := fields("--iptables-localhost-nodeports=false"); len(got) != 0 {
		t.Errorf("iptables without localhost NodePorts: unused %v", got)
	}
	if got := fields("--proxy-mode=ipvs", "--ipvs-strict-arp", "--bind-address=10.0.0.1", "--detect-local-mode=BridgeInterface"); !slices.Equal(got,
		[]string{"ipvs.strictARP", "detectLocalMode", "bindAddress"}) {
		t.Errorf("unused %v", got)
	}
}

// TestProxyValidation: kube-proxy's validation of the resolved settings.
func TestProxyValidation(t *testing.T) {
	if errs := mustParseProxy(t, "").Validate(); len(errs) != 0 {
		t.Errorf("defaults invalid: %v", errs)
	}
	for _, mode := range []string{"iptables", "ipvs", "nftables", "userspace"} {
		if errs := mustParseProxy(t, "", "--proxy-mode="+mode).Validate(); len(errs) != 0 {
			t.Errorf("--proxy-mode=%s invalid: %v", mode, errs)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--proxy-mode=kernelspace"}, "KubeProxyConfiguration.Mode.ProxyMode"},
		{[]string{"--iptables-sync-period=0"}, "KubeProxyConfiguration.SyncPeriod"},
		{[]string{"--iptables-min-sync-period=1m"}, "must be greater than or equal to KubeProxyConfiguration.MinSyncPeriod"},
		{[]string{"--config-sync-period=0"}, "ConfigSyncPeriod"},
		{[]string{"--metrics-port=0"}, "KubeProxyConfiguration.MetricsBindAddress: Invalid value: \"\": must be IP:port"},
		{[]string{"--nodeport-addresses=primary,10.0.0.0/8"}, "can't use both 'primary' and CIDRs"},
		{[]string{"--nodeport-addresses=10.0.0.0"}, "must be a valid CIDR"},
		{[]string{"--cluster-cidr=10.0.0.0/8,10.1.0.0/16"}, "dual-stack pair"},
		{[]string{"--iptables-masquerade-bit=32"}, "must be within the range [0, 31]"},
		{[]string{"--oom-score-adj=1001"}, "OOMScoreAdj"},
		{[]string{"--conntrack-min=-1"}, "KubeProxyConntrackConfiguration.Min"},
		{[]string{"--proxy-mode=ipvs", "--ipvs-exclude-cidrs=x"}, "ExcludeCidrs[0]"},
		{[]string{"--detect-local-mode=BridgeInterface"}, "InterfaceName"},
		{[]string{"--detect-local-mode=Other"}, "DetectLocalMode"},
		{[]string{"--show-hidden-metrics-for-version=1"}, "ShowHiddenMetricsForVersion"},
	} {
		err := validateErr(mustParseProxy(t, "", tc.args...).Validate())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestProxyHelpListsKubeProxyFlags: `svcplane proxy --help` shows every
// kube-proxy flag but the two upstream deprecates (pflag hides deprecated
// flags from the help, upstream's too).
func TestProxyHelpListsKubeProxyFlags(t *testing.T) {
	cmd := newProxyCommand()
	var help strings.Builder
	cmd.SetOut(&help)
	cmd.SetArgs([]string{"--help"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("testdata/kube-proxy-1.36-flags.golden")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		name, _, _ := strings.Cut(line, " ")
		if name == "" || strings.HasPrefix(name, "#") || name == "healthz-port" || name == "metrics-port" {
			continue
		}
		if !strings.Contains(help.String(), "--"+name+" ") {
			t.Errorf("--help lacks --%s", name)
		}
	}
	if strings.Contains(help.String(), "--sync-period") || strings.Contains(help.String(), "--healthz-port") {
		t.Errorf("--help shows deprecated flags")
	}
}

// TestProxyGCPercent: --gc-percent (svcplane's) defaults to the proxy's
// DefaultGCPercent, applies with --config too, and a value out of range
// stops the command with the flag's name before anything runs.
func TestProxyGCPercent(t *testing.T) {
	if o, _, err := parseProxy(t, ""); err != nil || o.gcPercent != proxy.DefaultGCPercent {
		t.Errorf("default --gc-percent %d (%v), want %d", o.gcPercent, err, proxy.DefaultGCPercent)
	}
	if o, _, err := parseProxy(t, "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n", "--gc-percent=25"); err != nil || o.gcPercent != 25 {
		t.Errorf("--gc-percent=25 with --config: %d (%v)", o.gcPercent, err)
	}
	cmd := newProxyCommand()
	cmd.SetOut(new(strings.Builder))
	cmd.SetErr(new(strings.Builder))
	cmd.SetArgs([]string{"--gc-percent=5", "--write-config-to=" + filepath.Join(t.TempDir(), "c.yaml")})
	if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), "--gc-percent 5: want 10 to 1000") {
		t.Errorf("--gc-percent=5: %v", err)
	}
}
