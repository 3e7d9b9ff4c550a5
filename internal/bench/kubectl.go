package bench

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// kubectlRound is a dozen commands a user types against a fresh cluster:
// reads, discovery, creates, a client-side apply, a describe, an explain
// (OpenAPI v3), a scale and a namespace delete. Each runs as its own
// kubectl process, as a user runs it.
var kubectlRound = []struct {
	args  []string
	stdin string
}{
	{args: []string{"get", "nodes"}},
	{args: []string{"get", "pods", "-A"}},
	{args: []string{"api-resources"}},
	{args: []string{"create", "namespace", "bench"}},
	{args: []string{"create", "deployment", "web", "-n", "bench", "--image=registry.k8s.io/pause:3.10", "--replicas=2"}},
	{args: []string{"expose", "deployment", "web", "-n", "bench", "--port=80"}},
	{args: []string{"get", "deploy,rs,svc,endpointslices", "-n", "bench", "-o", "wide"}},
	{args: []string{"describe", "deployment", "web", "-n", "bench"}},
	{args: []string{"apply", "-f", "-"}, stdin: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: bench\ndata:\n  mode: fast\n"},
	{args: []string{"get", "configmap", "settings", "-n", "bench", "-o", "yaml"}},
	{args: []string{"explain", "pod.spec.containers"}},
	{args: []string{"scale", "deployment", "web", "-n", "bench", "--replicas=3"}},
	{args: []string{"get", "events", "-n", "bench"}},
	{args: []string{"delete", "namespace", "bench", "--wait=false"}},
}

// runKubectlRound runs kubectlRound with kubectl against the server b and
// returns the number of commands; the first failure ends it.
func runKubectlRound(kubectl string, b *server) (int, error) {
	path, err := exec.LookPath(kubectl)
	if err != nil {
		return 0, fmt.Errorf("the kubectl round needs kubectl (--kubectl): %w", err)
	}
	for _, c := range kubectlRound {
		cmd := exec.Command(path, append([]string{"--kubeconfig", filepath.Join(b.dir, "kubeconfig")}, c.args...)...)
		cmd.Stdin = strings.NewReader(c.stdin)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return 0, fmt.Errorf("kubectl %s: %v: %s", strings.Join(c.args, " "), err, out.String())
		}
	}
	return len(kubectlRound), nil
}
