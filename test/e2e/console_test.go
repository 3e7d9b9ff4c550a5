package e2e

import (
	"context"
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

// TestUpConsoleIsClean starts `svcplane up` on a fresh data dir, runs a
// kubectl round (a Deployment exposed as a Service, scaled, listed,
// deleted), stops it with SIGTERM and requires that nothing it printed
// from start to exit is an error or warning line.
func TestUpConsoleIsClean(t *testing.T) {
	requireRoot(t)
	t.Parallel()
	up := &hostServer{t: t, dir: filepath.Join(t.TempDir(), "data"), port: freePort(t), args: []string{"up",
		"--proxy-mode", "none", "--advertise-address", "10.203.0.71"}}
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
	up.kill2(syscall.SIGTERM)
	if lines := alarming.FindAllString(up.p.log.String(), -1); len(lines) > 0 {
		var bad []string
		for _, line := range strings.Split(up.p.log.String(), "\n") {
			if alarming.MatchString(line) {
				bad = append(bad, line)
			}
		}
		t.Fatalf("svcplane up printed %d error/warning lines:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}
