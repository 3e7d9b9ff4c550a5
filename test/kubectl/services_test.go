package kubectl

import (
	"fmt"
	"strings"
	"testing"
)

// The kubectl test server's ranges (see run).
const (
	serviceRange  = "10.96.0.0/24"
	nodePortRange = "30000-30099"
)

// TestServiceAllocationErrors reaches every allocation error of issue 3
// through kubectl, with upstream's texts, and shows that re-applying the
// same YAML keeps the allocated values. It runs after TestKubectl and fills
// the ClusterIP range at its end.
func TestServiceAllocationErrors(t *testing.T) {
	skipShort(t)
	c := k{t: t, bin: "kubectl", ns: "alloc"}
	k{t: t, bin: "kubectl"}.ok("create", "namespace", "alloc")
	c.ok("create", "service", "clusterip", "fixed", "--tcp=80", "--clusterip=10.96.0.200")
	c.ok("create", "service", "nodeport", "np", "--tcp=80:8080", "--node-port=30050")
	contains(t, "taken IP", c.fails("create", "service", "clusterip", "again", "--tcp=80", "--clusterip=10.96.0.200"),
		`Service "again" is invalid: spec.clusterIPs: Invalid value: ["10.96.0.200"]: failed to allocate IP 10.96.0.200: provided IP is already allocated`)
	contains(t, "IP out of range", c.fails("create", "service", "clusterip", "far", "--tcp=80", "--clusterip=10.97.0.1"),
		"failed to allocate IP 10.97.0.1: the provided IP (10.97.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/24")
	contains(t, "taken port", c.fails("create", "service", "nodeport", "np2", "--tcp=80:8080", "--node-port=30050"),
		"spec.ports[0].nodePort: Invalid value: 30050: provided port is already allocated")
	contains(t, "port out of range", c.fails("create", "service", "nodeport", "np3", "--tcp=80:8080", "--node-port=31000"),
		"spec.ports[0].nodePort: Invalid value: 31000: provided port is not in the valid range. The range of valid ports is 30000-30099")

	// Re-applying a YAML without clusterIP/nodePort keeps both.
	yaml := writeFile(t, "apiVersion: v1\nkind: Service\nmetadata:\n  name: applied\nspec:\n  type: NodePort\n  ports:\n  - port: 80\n")
	c.ok("apply", "-f", yaml)
	before := c.ok("get", "svc", "applied", "-o", "jsonpath={.spec.clusterIP} {.spec.ports[0].nodePort}")
	contains(t, "re-apply", c.ok("apply", "-f", yaml), "service/applied unchanged")
	c.ok("replace", "-f", yaml)
	if after := c.ok("get", "svc", "applied", "-o", "jsonpath={.spec.clusterIP} {.spec.ports[0].nodePort}"); after != before {
		t.Errorf("re-apply and replace changed the allocation: %q → %q", before, after)
	}
	contains(t, "get ipaddresses", k{t: t, bin: "kubectl"}.ok("get", "ipaddresses"), "NAME", "PARENTREF", "services/alloc/fixed")
	contains(t, "get servicecidrs", k{t: t, bin: "kubectl"}.ok("get", "servicecidrs"), "NAME", "CIDRS", "AGE", "kubernetes", serviceRange)

	// Fill the range (254 addresses, some taken by the other tests) with
	// one multi-document create.
	var docs strings.Builder
	for i := 0; i < 260; i++ {
		fmt.Fprintf(&docs, "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: fill-%d\nspec:\n  ports:\n  - port: 80\n", i)
	}
	contains(t, "range full", c.fails("create", "-f", writeFile(t, docs.String())), "failed to allocate a serviceIP: range is full")
}
