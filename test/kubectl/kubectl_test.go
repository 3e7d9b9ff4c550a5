package kubectl

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

const webYAML = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - port: 80
    targetPort: 8080
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: c
        image: nginx:1.27
`

func cmYAML(name, value string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\ndata:\n  key: " + value + "\n"
}

func TestKubectl(t *testing.T) {
	for version, bin := range kubectlBinaries(t) {
		if version != "1.33" && version != "1.27" && testing.Short() {
			continue
		}
		t.Run(version, func(t *testing.T) { scenario(t, bin, "kubectl-"+strings.ReplaceAll(version, ".", "-")) })
	}
}

func scenario(t *testing.T, bin, ns string) {
	admin := k{t: t, bin: bin}
	admin.ok("create", "namespace", ns)
	c := k{t: t, bin: bin, ns: ns}

	contains(t, "api-resources", admin.ok("api-resources"),
		"services", "svc", "deployments", "deploy", "apps/v1", "endpointslices", "ipaddresses", "servicecidrs")
	contains(t, "version", admin.ok("version"), "Server Version", "v1.36.3")

	c.ok("create", "-f", writeFile(t, webYAML))
	contains(t, "get svc", c.ok("get", "svc", "web"), "NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "80/TCP")
	contains(t, "get svc -o wide", c.ok("get", "svc", "-o", "wide"), "SELECTOR", "app=web")
	contains(t, "get svc -o json", c.ok("get", "svc", "web", "-o", "json"), `"kind": "Service"`, `"targetPort": 8080`)
	contains(t, "get svc -o yaml", c.ok("get", "svc", "web", "-o", "yaml"), "kind: Service", "sessionAffinity: None")
	if got := c.ok("get", "svc", "web", "-o", "name"); strings.TrimSpace(got) != "service/web" {
		t.Errorf("-o name: %q", got)
	}
	if got := c.ok("get", "svc", "web", "-o", "jsonpath={.spec.ports[0].port}"); got != "80" {
		t.Errorf("-o jsonpath: %q", got)
	}
	contains(t, "custom-columns", c.ok("get", "svc", "-o", "custom-columns=N:.metadata.name"), "N", "web")
	contains(t, "get deploy", c.ok("get", "deploy", "web"), "READY", "UP-TO-DATE", "AVAILABLE")

	// Client-side apply: created, then unchanged.
	cfg := writeFile(t, cmYAML("cfg", "one"))
	contains(t, "apply", c.ok("apply", "-f", cfg), "configmap/cfg created")
	contains(t, "re-apply", c.ok("apply", "-f", cfg), "configmap/cfg unchanged")
	// Server-side apply with a conflicting second manager.
	contains(t, "apply --server-side", c.ok("apply", "--server-side", "-f", writeFile(t, cmYAML("ssa", "one"))), "serverside-applied")
	other := writeFile(t, cmYAML("ssa", "two"))
	contains(t, "conflicting apply", strings.ToLower(c.fails("apply", "--server-side", "--field-manager=other", "-f", other)), "conflict")
	c.ok("apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", other)
	if got := c.ok("get", "cm", "ssa", "-o", "jsonpath={.data.key}"); got != "two" {
		t.Errorf("forced apply: %q", got)
	}

	// Patches, labels, annotations, selectors.
	c.ok("patch", "svc", "web", "-p", `{"metadata":{"labels":{"x":"y"}}}`)
	c.ok("patch", "svc", "web", "--type=merge", "-p", `{"metadata":{"labels":{"m":"n"}}}`)
	c.ok("patch", "svc", "web", "--type=json", "-p", `[{"op":"add","path":"/metadata/annotations","value":{"a":"b"}}]`)
	if got := c.ok("get", "svc", "web", "-o", "jsonpath={.metadata.labels.x}{.metadata.labels.m}{.metadata.annotations.a}"); got != "ynb" {
		t.Errorf("after patches: %q", got)
	}
	c.ok("label", "svc", "web", "tier=front")
	c.ok("annotate", "svc", "web", "note=hi")
	if got := c.ok("get", "svc", "-l", "tier=front", "-o", "name"); strings.TrimSpace(got) != "service/web" {
		t.Errorf("label selector: %q", got)
	}
	if got := c.ok("get", "svc", "web", "-o", "jsonpath={.metadata.annotations.note}"); got != "hi" {
		t.Errorf("annotate: %q", got)
	}

	c.ok("replace", "-f", writeFile(t, cmYAML("cfg", "replaced")))
	if got := c.ok("get", "cm", "cfg", "-o", "jsonpath={.data.key}"); got != "replaced" {
		t.Errorf("replace: %q", got)
	}
	c.ok("scale", "deploy", "web", "--replicas=3")
	if got := c.ok("get", "deploy", "web", "-o", "jsonpath={.spec.replicas}"); got != "3" {
		t.Errorf("scale: %q", got)
	}
	contains(t, "explain", admin.ok("explain", "service.spec.ports"), "port", "targetPort")

	bad := "apiVersion: v1\nkind: Service\nmetadata:\n  name: bad\nspec:\n  ports:\n  - port: 0\n"
	contains(t, "invalid create", c.fails("create", "-f", writeFile(t, bad)),
		"spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive")

	for _, n := range []string{"a1", "a2", "a3"} {
		c.ok("create", "configmap", n, "--from-literal=k=v")
	}
	contains(t, "chunked list", c.ok("get", "configmaps", "--chunk-size=1"), "a1", "a2", "a3", "cfg", "ssa")

	watchConfigMaps(t, c)

	contains(t, "delete", c.ok("delete", "svc", "web"), `service "web" deleted`)
	contains(t, "get deleted", c.fails("get", "svc", "web"), "NotFound")
}

// watchConfigMaps runs `kubectl get cm -w` for a few seconds and checks that
// an object created meanwhile shows up.
func watchConfigMaps(t *testing.T, c k) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, "--kubeconfig", kubeconfig, "-n", c.ns, "get", "cm", "-w")
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	c.ok("create", "configmap", "watched")
	_ = cmd.Wait()
	contains(t, "get -w", out.String(), "watched")
}
