package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/svcplane/svcplane/internal/testutil"
)

// gatewayAPICRDs are Gateway API v1.7.0's standard-channel CRDs
// (testdata/gateway-api, copied from the sigs.k8s.io/gateway-api module).
var gatewayAPICRDs = []string{"gatewayclasses", "gateways", "httproutes", "referencegrants"}

const gatewayObjects = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: it-example
spec:
  controllerName: example.com/gateway-controller
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: my-gateway
spec:
  gatewayClassName: it-example
  listeners:
  - name: http
    protocol: HTTP
    port: 80
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: http-app
spec:
  parentRefs:
  - name: my-gateway
  hostnames: ["foo.example.com"]
  rules:
  - matches:
    - path: {type: PathPrefix, value: /bar}
    backendRefs:
    - name: my-service
      port: 8080
`

// TestGatewayAPI installs Gateway API's CRDs as its docs say (kubectl apply
// --server-side) and applies a GatewayClass, a Gateway and an HTTPRoute;
// an HTTPRoute that breaks one of the CRD's CEL rules is refused with the
// rule's message.
func TestGatewayAPI(t *testing.T) {
	skipShort(t)
	start := time.Now()
	crdMustKubectl(t, "apply", "--server-side", "-f", filepath.Join("testdata", "gateway-api"))
	crds := crdClient(t).ApiextensionsV1().CustomResourceDefinitions()
	t.Cleanup(func() {
		for _, r := range gatewayAPICRDs {
			if err := crds.Delete(ctx, r+".gateway.networking.k8s.io", metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("delete CRD %s: %v", r, err)
			}
		}
	})
	crdMustKubectl(t, "wait", "--for", "condition=Established", "--timeout=60s",
		"crd/gatewayclasses.gateway.networking.k8s.io", "crd/gateways.gateway.networking.k8s.io",
		"crd/httproutes.gateway.networking.k8s.io", "crd/referencegrants.gateway.networking.k8s.io")
	for _, r := range gatewayAPICRDs {
		gvr := schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: r}
		testutil.Eventually(t, 30*time.Second, r+" in discovery", func() bool { return inAggregatedDiscovery(t, gvr) })
	}
	t.Logf("Gateway API CRDs installed and in discovery in %v", time.Since(start).Round(time.Millisecond))

	ns := newNamespace(t, server.Client)
	t.Cleanup(func() { _ = server.Client.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}) })
	objects := filepath.Join(t.TempDir(), "gateway.yaml")
	noErr(t, os.WriteFile(objects, []byte(gatewayObjects), 0o600))
	out := crdMustKubectl(t, "-n", ns, "apply", "-f", objects)
	for _, want := range []string{"gatewayclass.gateway.networking.k8s.io/it-example created",
		"gateway.gateway.networking.k8s.io/my-gateway created", "httproute.gateway.networking.k8s.io/http-app created"} {
		if !strings.Contains(out, want) {
			t.Fatalf("kubectl apply:\n%s\nwant %q", out, want)
		}
	}
	out = crdMustKubectl(t, "-n", ns, "get", "gateways,httproutes")
	for _, want := range []string{"my-gateway", "it-example", "http-app", `["foo.example.com"]`} {
		if !strings.Contains(out, want) {
			t.Fatalf("kubectl get gateways,httproutes:\n%s\nwant %q", out, want)
		}
	}
	// The default the CRD's schema gives each backendRef (weight 1).
	weight := crdMustKubectl(t, "-n", ns, "get", "httproute", "http-app", "-o", "jsonpath={.spec.rules[0].backendRefs[0].weight}")
	if weight != "1" {
		t.Fatalf("backendRef weight %q, want the schema's default 1", weight)
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	noErr(t, os.WriteFile(bad, []byte(strings.ReplaceAll(gatewayObjects[strings.Index(gatewayObjects, "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute"):],
		"value: /bar", "value: bar")), 0o600))
	out, err := crdKubectl(t, "-n", ns, "apply", "-f", bad)
	if err == nil || !strings.Contains(out, "value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']") {
		t.Fatalf("HTTPRoute with a relative path: want the CRD's CEL message, got %v\n%s", err, out)
	}
}
