package nftables

import (
	"fmt"
	"testing"

	"github.com/svcplane/svcplane/internal/proxy/proxytest/netlab"
)

// TestKernelE2EIPv6 runs the ip6 table: ClusterIP and NodePort over IPv6,
// then an endpoint removal through a partial sync.
func TestKernelE2EIPv6(t *testing.T) {
	l := newNetlab(t)
	l.AddIPv6()
	vip := "[" + netlab.IPv6ClusterIP + "]:80"
	l.HelperOut("node", "sync", "STEPS=v6-two", "FAMILY=6")
	l.WaitIPv6(vip)
	if got := l.Dial("tcp", vip); got["b1"] == 0 || got["b2"] == 0 || got["error"] > 0 {
		t.Errorf("IPv6 ClusterIP: want both backends, got %v", got)
	}
	if got := l.Dial("tcp", fmt.Sprintf("[%s]:%d", netlab.IPv6NodeIP, netlab.IPv6NodePort)); got["b1"]+got["b2"] != 24 {
		t.Errorf("IPv6 NodePort: got %v", got)
	}
	l.HelperOut("node", "sync", "STEPS=v6-two,v6-one", "FAMILY=6")
	if got := l.Dial("tcp", vip); got["b2"] != 24 {
		t.Errorf("IPv6 after endpoint removal: got %v", got)
	}
}
