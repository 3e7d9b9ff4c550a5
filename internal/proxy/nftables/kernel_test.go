package nftables

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/svcplane/svcplane/internal/proxy"
	"github.com/svcplane/svcplane/internal/proxy/conntrack"
	"github.com/svcplane/svcplane/internal/proxy/proxytest"
	"github.com/svcplane/svcplane/internal/proxy/proxytest/netlab"
)

// The kernel e2e re-executes this test binary inside network namespaces
// (ip netns exec) in helper roles chosen by netlab.RoleEnv.
func TestMain(m *testing.M) {
	netlab.Main(m.Run, map[string]func() error{
		"sync":    func() error { return runSyncSteps(strings.Split(os.Getenv("STEPS"), ",")) },
		"compare": func() error { return compareSteps(strings.Split(os.Getenv("STEPS"), ",")) },
		"cleanup": func() error {
			nft, err := NewInterface(proxy.IPv4)
			if err != nil {
				return err
			}
			return Cleanup(context.Background(), nft)
		},
	})
}

// e2eStates are the cluster states the kernel test installs.
func e2eStates() map[string][]runtime.Object {
	web := proxytest.Svc("web", "10.96.0.10", 80, proxytest.NodePort(30080))
	udp := proxytest.Svc("dns", "10.96.0.53", 53)
	udp.Spec.Ports[0].Protocol = "UDP"
	udpSlice := proxytest.Slice("dns", 8080, "10.244.1.2@"+proxytest.OtherNode)
	udpSlice.Ports[0].Protocol = &udp.Spec.Ports[0].Protocol
	both := proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.OtherNode, "10.244.2.3@"+proxytest.OtherNode)
	one := proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.OtherNode)
	states := map[string][]runtime.Object{
		"two":  {web, both, udp, udpSlice},
		"one":  {web, one, udp, udpSlice},
		"none": {web},
	}
	for _, more := range []map[string][]runtime.Object{moreE2EStates(), netlab.IPv6States(), netlinkE2EStates()} {
		for name, objs := range more {
			states[name] = objs
		}
	}
	return states
}

func helperFamily() proxy.IPFamily {
	if os.Getenv("FAMILY") == "6" {
		return proxy.IPv6
	}
	return proxy.IPv4
}

// runSyncSteps syncs each state in turn (the first fully) and prints how
// the transactions went: "nft scripts N, netlink transactions M".
func runSyncSteps(steps []string) error {
	family := helperFamily()
	nft, err := NewInterface(family)
	if err != nil {
		return err
	}
	var snap *proxy.Snapshot
	p := NewProxier(Config{Family: family}, nft, func() *proxy.Snapshot { return snap })
	var ctErr error
	p.OnSynced = func(_ proxy.SyncResult, _, cur *proxy.Snapshot, err error) {
		if err == nil {
			_, ctErr = conntrack.CleanStaleEntries(conntrack.New(), cur, nil)
		}
	}
	for i, s := range steps {
		snap = proxytest.Snapshot(family, e2eStates()[s]...)
		if err := p.SyncProxyRules(i == 0); err != nil {
			return err
		}
		if ctErr != nil {
			return ctErr
		}
	}
	cli := nft.(*CLI)
	fmt.Printf("nft scripts %d, netlink transactions %d\n", cli.scripts, cli.netlinkTxs)
	return nil
}
