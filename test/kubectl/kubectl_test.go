package kubectl

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/svcplane/svcplane/internal/testutil"
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
	skipShort(t)
	bins := kubectlBinaries(t)
	versions := slices.Sorted(maps.Keys(bins))
	slices.Reverse(versions) // newest first
	for _, version := range versions {
		t.Run(version, func(t *testing.T) { scenario(t, bins[version], "kubectl-"+strings.ReplaceAll(version, ".", "-")) })
	}
}

func scenario(t *testing.T, bin, ns string) {
	admin := k{t: t, bin: bin}
	admin.ok("create", "namespace", ns)
	c := k{t: t, bin: bin, ns: ns}
	c.waitForDefaultServiceAccount()

	resources := admin.ok("api-resources")
	for _, want := range [][]string{
		{"services", "svc", "v1", "true", "Service"},
		{"deployments", "deploy", "apps/v1", "true", "Deployment"},
		{"endpointslices", "discovery.k8s.io/v1", "true", "EndpointSlice"},
		{"ipaddresses", "ip", "networking.k8s.io/v1", "false", "IPAddress"},
		{"servicecidrs", "networking.k8s.io/v1", "false", "ServiceCIDR"},
		{"events", "ev", "v1", "true", "Event"},
		{"events", "ev", "events.k8s.io/v1", "true", "Event"},
	} {
		if !hasRow(resources, want) {
			t.Errorf("api-resources: no row %q:\n%s", want, resources)
		}
	}
	contains(t, "version", admin.ok("version"), "Server Version", "v1.36.3")

	c.ok("create", "-f", writeFile(t, webYAML))
	contains(t, "get svc", c.ok("get", "svc", "web"), "NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "80/TCP")
	contains(t, "get svc -o wide", c.ok("get", "svc", "-o", "wide"), "SELECTOR", "app=web")
	var svc struct {
		Kind     string
		Metadata struct{ Name string }
		Spec     struct {
			Selector map[string]string
			Ports    []struct{ Port, TargetPort int }
		}
	}
	if err := json.Unmarshal([]byte(c.ok("get", "svc", "web", "-o", "json")), &svc); err != nil {
		t.Errorf("-o json: %v", err)
	} else if svc.Kind != "Service" || svc.Metadata.Name != "web" || svc.Spec.Selector["app"] != "web" ||
		len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 80 || svc.Spec.Ports[0].TargetPort != 8080 {
		t.Errorf("-o json: %+v", svc)
	}
	contains(t, "get svc -o yaml", c.ok("get", "svc", "web", "-o", "yaml"), "kind: Service", "sessionAffinity: None")
	if got := c.ok("get", "svc", "web", "-o", "name"); strings.TrimSpace(got) != "service/web" {
		t.Errorf("-o name: %q", got)
	}
	if got := c.ok("get", "svc", "web", "-o", "jsonpath={.spec.ports[0].port}"); got != "80" {
		t.Errorf("-o jsonpath: %q", got)
	}
	if got := c.ok("get", "svc", "-o", "custom-columns=N:.metadata.name"); got != "N\nweb\n" {
		t.Errorf("-o custom-columns: %q", got)
	}
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
	// Chunked lists: one header, every object once, the same as unchunked.
	chunked, whole := names(c.ok("get", "configmaps", "--chunk-size=1")), names(c.ok("get", "configmaps", "--chunk-size=0"))
	if len(chunked) == 0 || chunked[0] != "NAME" || !slices.Equal(chunked, whole) {
		t.Errorf("get --chunk-size=1 = %q, --chunk-size=0 = %q", chunked, whole)
	}
	for _, n := range []string{"a1", "a2", "a3", "cfg", "ssa"} {
		if !slices.Contains(chunked, n) {
			t.Errorf("get --chunk-size=1: no %s in %q", n, chunked)
		}
	}

	// ServiceAccount tokens: `kubectl create token` posts a TokenRequest.
	c.ok("create", "serviceaccount", "robot")
	token := strings.Split(strings.TrimSpace(c.ok("create", "token", "robot", "--duration=15m", "--audience=api")), ".")
	if payload, err := base64.RawURLEncoding.DecodeString(token[min(1, len(token)-1)]); len(token) != 3 || err != nil ||
		!strings.Contains(string(payload), `"aud":["api"]`) || !strings.Contains(string(payload), `"sub":"system:serviceaccount:`+ns+`:robot"`) {
		t.Errorf("create token: %q (%v)", payload, err)
	}
	contains(t, "create token --duration=1m", c.fails("create", "token", "robot", "--duration=1m"),
		"spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes")

	watchConfigMaps(t, c)

	contains(t, "delete", c.ok("delete", "svc", "web"), `service "web" deleted`)
	contains(t, "get deleted", c.fails("get", "svc", "web"), "NotFound")
}

// watchConfigMaps runs `kubectl get cm -w`, waits until it has printed the
// initial list, creates a configmap and checks that the watch prints it.
func watchConfigMaps(t *testing.T, c k) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, "--kubeconfig", kubeconfig, "-n", c.ns, "get", "cm", "-w", "--request-timeout=10s")
	out := &syncBuffer{}
	cmd.Stdout = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); _ = cmd.Wait() }()
	if !out.waitFor(ctx, "NAME") {
		t.Fatalf("get -w printed no initial list: %q", out.String())
	}
	c.ok("create", "configmap", "watched")
	if !out.waitFor(ctx, "watched") {
		t.Errorf("get -w: no event for configmap watched:\n%s", out.String())
	}
}

// syncBuffer is a bytes.Buffer a running command writes while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor polls until the buffer contains s or ctx's deadline passes.
func (b *syncBuffer) waitFor(ctx context.Context, s string) bool {
	deadline, _ := ctx.Deadline()
	return testutil.Poll(time.Until(deadline), func() error {
		if !strings.Contains(b.String(), s) {
			return errors.New("not printed yet")
		}
		return nil
	}) == nil
}

// hasRow reports whether a line of table output has exactly the given fields.
func hasRow(table string, fields []string) bool {
	for _, line := range strings.Split(table, "\n") {
		if slices.Equal(strings.Fields(line), fields) {
			return true
		}
	}
	return false
}

// names returns the first column of every line of table output.
func names(table string) []string {
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(table), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			out = append(out, f[0])
		}
	}
	return out
}
