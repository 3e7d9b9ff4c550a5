package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/knftables"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/conntrack"
	"github.com/svcplane/svcplane/internal/proxy/nftables"
)

func fakeNFT(f proxy.IPFamily) (knftables.Interface, error) {
	fam := knftables.IPv4Family
	if f == proxy.IPv6 {
		fam = knftables.IPv6Family
	}
	return knftables.NewFake(fam, nftables.TableName), nil
}

// TestRunSetsConntrackSysctls: Config.Conntrack is written before the
// proxy starts, as kube-proxy's platformSetup.
func TestRunSetsConntrackSysctls(t *testing.T) {
	root := t.TempDir()
	nf := filepath.Join(root, "proc/sys/net/netfilter")
	if err := os.MkdirAll(nf, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := Defaults()
	cfg.Conntrack = &conntrack.Sysctls{TCPBeLiberal: true, UDPTimeout: 30e9}
	runUntilBothFamiliesSynced(t, cfg, Deps{NFT: fakeNFT, Conntrack: conntrack.NewFake(), SysRoot: root})
	for name, want := range map[string]string{"nf_conntrack_tcp_be_liberal": "1", "nf_conntrack_udp_timeout": "30"} {
		if got, _ := os.ReadFile(filepath.Join(nf, name)); string(got) != want {
			t.Errorf("%s = %q, want %s", name, got, want)
		}
	}
}

// TestRunFailsOnConntrackSysctls: a sysctl that cannot be set stops the
// start, as in kube-proxy.
func TestRunFailsOnConntrackSysctls(t *testing.T) {
	cfg := Defaults()
	cfg.Conntrack = &conntrack.Sysctls{MaxPerCore: 32768}
	err := Run(context.Background(), cfg, dualStackClient(), Deps{NFT: fakeNFT, Conntrack: conntrack.NewFake(), SysRoot: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "could not set conntrack parameters") {
		t.Errorf("Run: %v, want the sysctl error", err)
	}
}
