package iptables

import (
	"context"
	"maps"
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
		"sync": func() error {
			return runSyncSteps(Variant(os.Getenv("VARIANT")), strings.Split(os.Getenv("STEPS"), ","))
		},
		"cleanup": func() error {
			ipt, err := New(familyFromEnv(), Variant(os.Getenv("VARIANT")))
			if err != nil {
				return err
			}
			return Cleanup(context.Background(), ipt)
		},
	})
}

// familyFromEnv is IPv6 when FAMILY=6, else IPv4.
func familyFromEnv() proxy.IPFamily {
	if os.Getenv("FAMILY") == "6" {
		return proxy.IPv6
	}
	return proxy.IPv4
}

// e2eStates are the cluster states the kernel test installs.
func e2eStates() map[string][]runtime.Object {
	web := proxytest.Svc("web", "10.96.0.10", 80, proxytest.NodePort(30080))
	udp := proxytest.Svc("dns", "10.96.0.53", 53)
	udp.Spec.Ports[0].Protocol = "UDP"
	udpSlice := proxytest.Slice("dns", 8080, "10.244.1.2@"+proxytest.OtherNode)
	udpSlice.Ports[0].Protocol = &udp.Spec.Ports[0].Protocol
	udpSlice2 := proxytest.Slice("dns", 8080, "10.244.2.3@"+proxytest.OtherNode)
	udpSlice2.Ports[0].Protocol = &udp.Spec.Ports[0].Protocol
	both := proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.OtherNode, "10.244.2.3@"+proxytest.OtherNode)
	one := proxytest.Slice("web", 8080, "10.244.1.2@"+proxytest.OtherNode)
	// extra arrives in a partial sync (rule inserts into KUBE-SERVICES)
	// and leaves in one (rule deletes).
	extra := proxytest.Svc("extra", "10.96.0.20", 80)
	extraSlice := proxytest.Slice("extra", 8080, "10.244.2.3@"+proxytest.OtherNode)
	states := map[string][]runtime.Object{
		"two":  {web, both, udp, udpSlice},
		"one":  {web, one, udp, udpSlice2, extra, extraSlice},
		"none": {web},
	}
	maps.Copy(states, netlab.IPv6States())
	return states
}

// runSyncSteps syncs each state in turn (first full, then partial) and
// clears stale UDP conntrack entries as the proxy does.
func runSyncSteps(v Variant, steps []string) error {
	family := familyFromEnv()
	ipt, err := New(family, v)
	if err != nil {
		return err
	}
	var snap *proxy.Snapshot
	p := NewProxier(Config{Family: family}, ipt, func() *proxy.Snapshot { return snap }, nil)
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
	return nil
}
