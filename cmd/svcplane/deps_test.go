package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestBinaryLinksNoTestKit: the binary links neither the testing package
// nor the proxy's test kit (proxytest, netlab); the benches share only
// proxytest/synthetic with the tests.
func TestBinaryLinksNoTestKit(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg == "testing" || strings.HasSuffix(pkg, "/internal/proxy/proxytest") || strings.Contains(pkg, "/proxytest/netlab") {
			t.Errorf("svcplane links %s", pkg)
		}
	}
}
