package plane

import (
	"net"
	"testing"
)

func TestKubeletBindAddress(t *testing.T) {
	if got := kubeletBindAddress(net.ParseIP("127.0.0.1")); got != "127.0.0.1" {
		t.Errorf("loopback: %s", got)
	}
	// 192.0.2.0/24 is documentation space: on no interface here.
	if got := kubeletBindAddress(net.ParseIP("192.0.2.254")); got != "0.0.0.0" {
		t.Errorf("an address of no interface: %s", got)
	}
}
