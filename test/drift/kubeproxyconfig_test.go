package drift

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
	v1alpha1 "k8s.io/kube-proxy/config/v1alpha1"
	proxyconfig "k8s.io/kubernetes/pkg/proxy/apis/config"
	proxyconfigscheme "k8s.io/kubernetes/pkg/proxy/apis/config/scheme"
	proxyvalidation "k8s.io/kubernetes/pkg/proxy/apis/config/validation"
	"sigs.k8s.io/yaml"

	"github.com/svcplane/svcplane/internal/proxy/kubeproxyconfig"
)

const kpHead = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n"

// kubeProxyFiles are KubeProxyConfiguration bodies (after kpHead) that
// decode strictly: defaults, mode sections, addresses, invalid values.
var kubeProxyFiles = []string{
	"",
	"bindAddress: \"::\"\n",
	"bindAddress: 10.0.0.1\nhealthzBindAddress: 10.0.0.1\nmetricsBindAddress: \"::1\"\n",
	"mode: iptables\niptables: {syncPeriod: 5s, minSyncPeriod: 2s, masqueradeAll: true}\n",
	"mode: ipvs\nipvs: {syncPeriod: 7s, scheduler: wlc, excludeCIDRs: [10.0.0.0/8, x]}\niptables: {masqueradeAll: true}\n",
	"mode: nftables\nnftables: {syncPeriod: 9s, minSyncPeriod: 0s, masqueradeAll: true, masqueradeBit: 40}\n",
	"mode: \"\"\nnftables: {syncPeriod: 9s}\n",
	"mode: kernelspace\n",
	"mode: iptables\niptables: {syncPeriod: 1s, minSyncPeriod: 5s, masqueradeBit: -1}\n",
	"clusterCIDR: 10.244.0.0/16,fd00:10:244::/56\nnodePortAddresses: [192.168.0.0/16]\n",
	"clusterCIDR: 10.244.0.0/16,10.245.0.0/16\nnodePortAddresses: [primary, 10.0.0.0/8]\n",
	"clusterCIDR: x\nnodePortAddresses: [10.0.0.1]\nhealthzBindAddress: \"1.2.3.4:0\"\n",
	"detectLocalMode: BridgeInterface\n",
	"detectLocalMode: InterfaceNamePrefix\ndetectLocal: {interfaceNamePrefix: veth}\n",
	"detectLocalMode: Other\n",
	"oomScoreAdj: 2000\nconntrack: {maxPerCore: -1, min: 0, udpTimeout: -1s}\n",
	"configSyncPeriod: -1s\nclientConnection: {burst: -1}\n",
	"showHiddenMetricsForVersion: \"1\"\n",
	"mode: ipvs\nipvs: {tcpTimeout: -1s}\n",
}

// TestKubeProxyConfigurationDefaults: our SetDefaults is upstream's
// defaulting of the v1alpha1 type.
func TestKubeProxyConfigurationDefaults(t *testing.T) {
	for _, body := range kubeProxyFiles {
		var want, got v1alpha1.KubeProxyConfiguration
		if err := yaml.UnmarshalStrict([]byte(kpHead+body), &want); err != nil {
			t.Fatal(err)
		}
		got = *want.DeepCopy()
		proxyconfigscheme.Scheme.Default(&want)
		kubeproxyconfig.SetDefaults(&got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\nours     %+v\nupstream %+v", body, got, want)
		}
	}
}

// upstreamSettings is what kube-proxy runs with for a config file: its
// codec's decoding (defaults, conversion to the internal type) and its
// Linux platformApplyDefaults.
func upstreamSettings(t *testing.T, data []byte) *proxyconfig.KubeProxyConfiguration {
	t.Helper()
	obj, _, err := proxyconfigscheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := obj.(*proxyconfig.KubeProxyConfiguration)
	if c.Mode == "" {
		c.Mode = proxyconfig.ProxyModeIPTables
	}
	if c.Mode == proxyconfig.ProxyModeNFTables && len(c.NodePortAddresses) == 0 {
		c.NodePortAddresses = []string{proxyconfig.NodePortAddressesPrimary}
	}
	if c.DetectLocalMode == "" {
		c.DetectLocalMode = proxyconfig.LocalModeClusterCIDR
	}
	return c
}

func errorFields(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field+": "+e.Detail)
	}
	slices.Sort(out)
	return out
}

// TestKubeProxyConfigurationResolved: a config file resolves to the
// settings kube-proxy runs with (mode, the mode section's periods and
// masqueradeAll, addresses, cluster CIDRs) and validates to the same
// errors.
func TestKubeProxyConfigurationResolved(t *testing.T) {
	dir := t.TempDir()
	for i, body := range kubeProxyFiles {
		data := []byte(kpHead + body)
		want := upstreamSettings(t, data)
		path := dir + "/" + string(rune('a'+i)) + ".conf"
		if err := writeFile(path, data); err != nil {
			t.Fatal(err)
		}
		c, err := kubeproxyconfig.Load(path)
		if err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		got := kubeproxyconfig.FromFile(c)
		got.ApplyPlatformDefaults()
		if string(got.Mode) != string(want.Mode) || got.SyncPeriod != want.SyncPeriod.Duration || got.MinSyncPeriod != want.MinSyncPeriod.Duration ||
			got.MasqueradeAll != want.Linux.MasqueradeAll || got.HealthzBindAddress != want.HealthzBindAddress ||
			got.MetricsBindAddress != want.MetricsBindAddress || !slices.Equal(got.NodePortAddresses, want.NodePortAddresses) ||
			got.ClusterCIDR != strings.Join(want.DetectLocal.ClusterCIDRs, ",") || string(got.DetectLocalMode) != string(want.DetectLocalMode) {
			t.Errorf("%q:\nours     %+v\nupstream %+v", body, got, want)
		}
		g, w := errorFields(got.Validate()), errorFields(proxyvalidation.Validate(want))
		// svcplane's one addition: the userspace mode.
		for i := range g {
			g[i] = strings.Replace(g[i], "nftables, userspace or blank", "nftables or blank", 1)
		}
		if !slices.Equal(g, w) {
			t.Errorf("%q: validation\nours     %q\nupstream %q", body, g, w)
		}
	}
}

func writeFile(path string, data []byte) error { return os.WriteFile(path, data, 0o600) }
