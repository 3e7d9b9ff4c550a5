package plane

import (
	"os"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
)

func TestNetnsNodeIPsComeAfterTheHostBridge(t *testing.T) {
	o := newNetnsOptions()
	ips, host, err := o.nodeIPs(3)
	if err != nil {
		t.Fatal(err)
	}
	if host.String() != "10.250.0.1/16" || !slices.Equal(ips, []string{"10.250.0.2", "10.250.0.3", "10.250.0.4"}) {
		t.Fatalf("host %s, nodes %v", host, ips)
	}
	o.HostAddress = "192.168.7.1/29" // 8 addresses: network, host, 5 nodes, broadcast
	if ips, _, err := o.nodeIPs(5); err != nil || ips[4] != "192.168.7.6" {
		t.Fatalf("a /29 for 5 nodes: %v %v", ips, err)
	}
	if _, _, err := o.nodeIPs(6); err == nil || !strings.Contains(err.Error(), "too small for 6 nodes") {
		t.Fatalf("a /29 for 6 nodes: %v", err)
	}
	for _, bad := range []string{"fd00::1/64", "10.250.0.1", "nonsense"} {
		o.HostAddress = bad
		if _, _, err := o.nodeIPs(1); err == nil || !strings.Contains(err.Error(), "--netns-host-address") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestRuntimeFlagIsChecked(t *testing.T) {
	o := NewNodeOptions()
	o.Runtime = "docker"
	if _, err := o.AgentConfig(&rest.Config{Host: "https://127.0.0.1:1"}, []string{"n"}); err == nil || err.Error() != `--runtime "docker": want sim or netns` {
		t.Fatalf("unknown runtime: %v", err)
	}
	o.Runtime, o.Netns.UnpullableImages = "netns", "webserver:(404"
	if _, err := o.AgentConfig(&rest.Config{Host: "https://127.0.0.1:1"}, []string{"n"}); err == nil || !strings.HasPrefix(err.Error(), `--unpullable-images "webserver:(404": error parsing regexp`) {
		t.Fatalf("a bad --unpullable-images: %v", err)
	}
	o.Netns.UnpullableImages = ""
	if os.Geteuid() == 0 {
		return
	}
	if _, err := o.AgentConfig(&rest.Config{Host: "https://127.0.0.1:1"}, []string{"n"}); err == nil || !strings.Contains(err.Error(), "needs root") {
		t.Fatalf("netns without root: %v", err)
	}
}
