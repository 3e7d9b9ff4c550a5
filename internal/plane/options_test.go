package plane

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/svcplane/svcplane/internal/apiserver"
	"github.com/svcplane/svcplane/internal/controller/servicecidr"
)

// TestControllerFlagsKeepTheirNamesAndDefaults: the controller manager's
// flags moved here from the API server's options unchanged.
func TestControllerFlagsKeepTheirNamesAndDefaults(t *testing.T) {
	want := map[string]string{
		"controllers":               "[*]",
		"cluster-cidr":              "10.244.0.0/16",
		"node-cidr-mask-size-ipv4":  "24",
		"node-cidr-mask-size-ipv6":  "64",
		"node-monitor-period":       "5s",
		"node-monitor-grace-period": "50s",
		"node-startup-grace-period": "1m0s",
		"node-name":                 DefaultNodeName(),
		"secure-port":               "6443",
		"repair-interval":           "3m0s",
		"gc-percent":                "50",
	}
	for _, tc := range []struct {
		name string
		o    *Options
		up   map[string]string
	}{
		{"server", NewServerOptions(), nil},
		{"up", NewUpOptions(), map[string]string{"nodes": "1", "proxy-mode": "nftables"}},
	} {
		var fss cliflag.NamedFlagSets
		tc.o.AddFlags(&fss)
		fs := pflag.NewFlagSet(tc.name, pflag.ContinueOnError)
		for _, section := range fss.FlagSets {
			fs.AddFlagSet(section)
		}
		for name, def := range merge(want, tc.up) {
			f := fs.Lookup(name)
			if f == nil {
				t.Errorf("%s: no --%s", tc.name, name)
				continue
			}
			if f.DefValue != def {
				t.Errorf("%s: --%s defaults to %q, want %q", tc.name, name, f.DefValue, def)
			}
		}
		if f := fs.Lookup("etcd-servers"); f == nil || f.Hidden != (tc.name == "up") {
			t.Errorf("%s: --etcd-servers hidden only under up: %+v", tc.name, f)
		}
	}
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func TestValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		adjust func(*Options)
		want   string
	}{
		"defaults":             {func(*Options) {}, ""},
		"unknown controller":   {func(o *Options) { o.Controllers = []string{"nope"} }, "--controllers"},
		"bad cluster CIDR":     {func(o *Options) { o.ClusterCIDR = "10.0.0.0/30" }, "--cluster-cidr"},
		"monitor period":       {func(o *Options) { o.NodeMonitorPeriod = 0 }, "--node-monitor-period"},
		"node name":            {func(o *Options) { o.NodeName = "Not_A_Name" }, "--node-name"},
		"gc percent":           {func(o *Options) { o.GCPercent = 5 }, "--gc-percent 5"},
		"up on external etcd":  {func(o *Options) { o.up, o.EtcdServers = true, []string{"http://x:2379"} }, "embedded etcd"},
		"proxy mode":           {func(o *Options) { o.ProxyMode = "ebpf" }, "--proxy-mode"},
		"runtime":              {func(o *Options) { o.Runtime = "docker" }, `--runtime "docker": want sim or netns`},
		"server option, still": {func(o *Options) { o.SecurePort = -1 }, "--secure-port"},
		"negative compaction":  {func(o *Options) { o.EtcdCompactionInterval = -time.Second }, "--etcd-compaction-interval"},
		"dns ttl (up)":         {func(o *Options) { o.DNSEnabled, o.DNS.TTL = true, 1500*time.Millisecond }, "--dns-ttl"},
		"negative watch grace": {func(o *Options) { o.ShutdownWatchTerminationGracePeriod = -time.Second }, "--shutdown-watch-termination-grace-period"},
	} {
		o := NewServerOptions()
		o.DataDir = t.TempDir()
		tc.adjust(o)
		err := o.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %v, want an error naming %q", name, err, tc.want)
		}
	}
}

// TestServiceCIDRFinalizerAgrees: the API server spells the ServiceCIDR
// controller's finalizer itself (it imports no controller).
func TestServiceCIDRFinalizerAgrees(t *testing.T) {
	if apiserver.ServiceCIDRFinalizer != servicecidr.Finalizer {
		t.Fatalf("apiserver %q, controller %q", apiserver.ServiceCIDRFinalizer, servicecidr.Finalizer)
	}
}

// TestWebhookRouting: only up without a proxy routes Service webhooks to
// endpoints by itself.
func TestWebhookRouting(t *testing.T) {
	for _, c := range []struct {
		o    *Options
		mode string
		want bool
	}{{NewUpOptions(), ProxyNone, true}, {NewUpOptions(), "nftables", false}, {NewServerOptions(), ProxyNone, false}} {
		c.o.ProxyMode = c.mode
		c.o.completeWebhookRouting()
		if c.o.EnableAggregatorRouting != c.want {
			t.Errorf("up=%v proxy %s: routing to endpoints %v, want %v", c.o.up, c.mode, c.o.EnableAggregatorRouting, c.want)
		}
	}
}
