package e2e

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// alarming matches a console line a user reads as "something is broken":
// klog's error and warning lines, etcd/zap JSON at error or warn level, a
// panic or a goroutine dump.
var alarming = regexp.MustCompile(`(?m)^[EWF]\d{4} |"level":"(error|warn|fatal|panic)"|^panic:|^goroutine \d+ \[`)

// upstreamStartWarnings are warnings k8s.io/apiserver itself prints at
// every start, kube-apiserver's console included, that svcplane cannot
// turn off without forking the library: apiextensions-apiserver's New
// installs its group with every version its scheme knows, and v1beta1
// (kept in the scheme as the CRDs' etcd encoding, as upstream stores
// them) has no storage since 1.22; kube-aggregator's apiservices group
// likewise installs v1beta1 from its scheme, which has no storage since
// 1.22 either. Each entry is the exact message.
var upstreamStartWarnings = []string{
	"] Skipping API apiextensions.k8s.io/v1beta1 because it has no resources.",
	"] Skipping API apiregistration.k8s.io/v1beta1 because it has no resources.",
}

func upstreamStartWarning(line string) bool {
	for _, w := range upstreamStartWarnings {
		if strings.HasSuffix(line, w) {
			return true
		}
	}
	return false
}

// TestUpConsoleIsClean starts `svcplane up` on a fresh data dir, runs a
// kubectl round (a Deployment exposed as a Service, scaled, listed,
// deleted) and requires that nothing it printed is an error or warning
// line; then, with a kubectl watch open, stops it with SIGTERM, which must
// print none either.
func TestUpConsoleIsClean(t *testing.T) {
	requireRoot(t)
	t.Parallel()
	up := &hostServer{t: t, dir: filepath.Join(t.TempDir(), "data"), port: freePort(t), args: []string{"up",
		"--proxy-mode", "none", "--advertise-address", "10.203.0.71",
		// The advertise address is not this host's: the DNS listens on a
		// free loopback port (kube-dns gets no endpoints, said at info).
		"--dns-bind-address", fmt.Sprintf("127.0.0.1:%d", freePort(t)), "--dns-metrics-address", fmt.Sprintf("127.0.0.1:%d", freePort(t))}}
	up.start()
	kubeconfig := filepath.Join(up.dir, "kubeconfig")
	kubectl := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", kubeconfig}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	kubectl("create", "deployment", "web", "--image=registry.k8s.io/pause", "--replicas=2")
	kubectl("expose", "deployment", "web", "--port=80")
	kubectl("rollout", "status", "deployment/web", "--timeout=60s")
	kubectl("scale", "deployment", "web", "--replicas=4")
	kubectl("rollout", "status", "deployment/web", "--timeout=60s")
	kubectl("get", "all", "-A")
	kubectl("delete", "service", "web")
	kubectl("delete", "deployment", "web", "--wait=true")
	time.Sleep(2 * time.Second) // the controllers finish the deletes
	running := up.p.log.String()
	if bad := alarmingLines(running); len(bad) > 0 {
		t.Fatalf("svcplane up printed %d error/warning lines:\n%s", len(bad), strings.Join(bad, "\n"))
	}
	// A user's watch is open when the server stops.
	watch := exec.Command("kubectl", "--kubeconfig", kubeconfig, "get", "pods", "-A", "--watch")
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = watch.Process.Kill(); _ = watch.Wait() }()
	time.Sleep(time.Second) // the watch is established
	up.kill2(syscall.SIGTERM)
	if bad := alarmingLines(strings.TrimPrefix(up.p.log.String(), running)); len(bad) > 0 {
		t.Fatalf("the stop printed %d error/warning lines:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

func alarmingLines(log string) []string {
	var bad []string
	for _, line := range strings.Split(log, "\n") {
		if alarming.MatchString(line) && !upstreamStartWarning(line) {
			bad = append(bad, line)
		}
	}
	return bad
}
