package kubectl

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// gadgetsCRD is a namespaced CRD with a schema (a default, a CEL rule),
// the status and scale subresources and printer columns.
const gadgetsCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.kubectl.it.example.com
spec:
  group: kubectl.it.example.com
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList, shortNames: [gdg]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
    additionalPrinterColumns:
    - {name: Replicas, type: integer, jsonPath: .spec.replicas}
    - {name: Size, type: string, jsonPath: .spec.size}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - {rule: "self.replicas <= 10", message: "at most 10 replicas"}
            properties:
              replicas: {type: integer, default: 1}
              size: {type: string, default: small, description: How big the gadget is.}
`

func gadgetYAML(name, spec string) string {
	return "apiVersion: kubectl.it.example.com/v1\nkind: Gadget\nmetadata:\n  name: " + name + "\nspec: " + spec + "\n"
}

// TestCustomResources drives every kubectl version (1.27–1.33) through a
// CRD's life: apply it, apply custom resources (client- and server-side),
// get them with the printer columns, explain the kind (OpenAPI v3), scale
// it, see a CEL rule refuse a change, delete them.
func TestCustomResources(t *testing.T) {
	skipShort(t)
	admin := k{t: t, bin: "kubectl"}
	admin.ok("apply", "-f", writeFile(t, gadgetsCRD))
	admin.ok("wait", "--for", "condition=Established", "--timeout=30s", "crd/gadgets.kubectl.it.example.com")
	t.Cleanup(func() { admin.run("delete", "crd", "gadgets.kubectl.it.example.com") })
	bins := kubectlBinaries(t)
	for _, version := range slices.Sorted(maps.Keys(bins)) {
		t.Run(version, func(t *testing.T) {
			c := namespace(t, "crd-"+strings.ReplaceAll(version, ".", "-"))
			c.bin = bins[version]
			contains(t, "apply", c.ok("apply", "-f", writeFile(t, gadgetYAML("one", "{replicas: 2}"))), "gadget.kubectl.it.example.com/one created")
			contains(t, "apply --server-side", c.ok("apply", "--server-side", "-f", writeFile(t, gadgetYAML("two", "{size: large}"))),
				"gadget.kubectl.it.example.com/two serverside-applied")
			table := c.ok("get", "gadgets")
			for _, row := range [][]string{{"NAME", "REPLICAS", "SIZE"}, {"one", "2", "small"}, {"two", "1", "large"}} {
				if !hasRow(table, row) {
					t.Errorf("get gadgets: no row %q:\n%s", row, table)
				}
			}
			contains(t, "explain", c.ok("explain", "gadget.spec.size"), "KIND:       Gadget", "How big the gadget is.")
			c.ok("scale", "gdg", "one", "--replicas=5")
			if got := c.ok("get", "gadget", "one", "-o", "jsonpath={.spec.replicas}"); got != "5" {
				t.Errorf("after kubectl scale: replicas %q", got)
			}
			contains(t, "scale past the CEL rule", c.fails("scale", "gadget", "one", "--replicas=11"), "at most 10 replicas")
			contains(t, "delete", c.ok("delete", "gadgets", "--all"), `gadget.kubectl.it.example.com "one" deleted`)
		})
	}
}
