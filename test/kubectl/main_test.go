package kubectl

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/svcplane/svcplane/internal/testutil"
)

var (
	kubeconfig string
	serverLog  string
)

func TestMain(m *testing.M) {
	flag.Parse()
	if testing.Short() {
		// No binary, no server: every test says SKIP (skipShort).
		fmt.Println("test/kubectl: -short: no server started; every test skips")
		os.Exit(m.Run())
	}
	code, err := run(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubectl tests:", err)
		code = 1
	}
	os.Exit(code)
}

// run builds the binary once, starts `svcplane server`, runs the tests and
// stops the server with SIGTERM.
func run(m *testing.M) (int, error) {
	dir, err := os.MkdirTemp("", "svcplane-kubectl-")
	if err != nil {
		return 1, err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "svcplane")
	build := exec.Command("go", "build", "-o", bin, "./cmd/svcplane")
	build.Dir = repoRoot()
	if out, err := build.CombinedOutput(); err != nil {
		return 1, fmt.Errorf("go build: %v\n%s", err, out)
	}
	serverLog = filepath.Join(dir, "server.log")
	logf, err := os.Create(serverLog)
	if err != nil {
		return 1, err
	}
	defer logf.Close()
	// Small ranges so that TestServiceAllocationErrors can fill them.
	srv := exec.Command(bin, "server", "--data-dir", filepath.Join(dir, "data"), "--secure-port", "0", "--bind-address", "127.0.0.1",
		"--service-cluster-ip-range", serviceRange, "--service-node-port-range", nodePortRange)
	srv.Stderr = logf
	stdout, err := srv.StdoutPipe()
	if err != nil {
		return 1, err
	}
	if err := srv.Start(); err != nil {
		return 1, err
	}
	exited := make(chan error, 1)
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	go func() { exited <- srv.Wait() }()
	if !strings.Contains(line, "serving on") {
		return 1, fmt.Errorf("server did not start: %q; log in %s", line, tail(serverLog))
	}
	kubeconfig = filepath.Join(dir, "data", "kubeconfig")
	if err := waitReady(60 * time.Second); err != nil {
		_ = srv.Process.Kill()
		return 1, fmt.Errorf("%v\nserver log:\n%s", err, tail(serverLog))
	}
	agent, err := startNodes(bin, dir)
	if err != nil {
		_ = srv.Process.Kill()
		return 1, err
	}
	code := m.Run()
	_ = agent.Process.Signal(syscall.SIGTERM)
	_ = agent.Wait()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "server log (tail):\n%s\n", tail(serverLog))
	}
	_ = srv.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		_ = srv.Process.Kill()
		return 1, fmt.Errorf("server did not exit within 30s of SIGTERM")
	}
	return code, nil
}

// skipShort skips t under -short: every test here drives the kubectl
// binaries against a built svcplane server.
func skipShort(t *testing.T) {
	t.Helper()
	testutil.SkipShort(t, "kubectl test: needs the kubectl binaries and a built svcplane server")
}

// simNodes are the simulated nodes the tests' pods run on.
const simNodes = 3

// startNodes runs `svcplane node` with three simulated nodes (zones a, b,
// c) on the node simulator's credentials and waits until they are Ready.
func startNodes(bin, dir string) (*exec.Cmd, error) {
	logf, err := os.Create(filepath.Join(dir, "node.log"))
	if err != nil {
		return nil, err
	}
	agent := exec.Command(bin, "node", "--kubeconfig", filepath.Join(dir, "data", "node-simulator-kubeconfig"),
		"--nodes", fmt.Sprint(simNodes), "--name-prefix", "kt-node-", "--zones", "a,b,c")
	agent.Stdout, agent.Stderr = logf, logf
	if err := agent.Start(); err != nil {
		return nil, err
	}
	want := strings.Repeat("True ", simNodes)
	err = testutil.Poll(60*time.Second, func() error {
		out, _ := exec.Command("kubectl", "--kubeconfig", kubeconfig, "get", "nodes", "-o",
			`jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status} {end}`).Output()
		if string(out) != want {
			return fmt.Errorf("Ready conditions %q, want %q", out, want)
		}
		return nil
	})
	if err != nil {
		_ = agent.Process.Kill()
		return nil, fmt.Errorf("simulated nodes not Ready: %v; agent log:\n%s", err, tail(logf.Name()))
	}
	return agent, nil
}

func waitReady(timeout time.Duration) error {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		return fmt.Errorf("kubectl is not on PATH: the kubectl tests need it")
	}
	err = testutil.Poll(timeout, func() error {
		if out, err := exec.Command(kubectl, "--kubeconfig", kubeconfig, "get", "--raw", "/readyz").CombinedOutput(); err != nil {
			return fmt.Errorf("%v %s", err, out)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("/readyz not ok: %v", err)
	}
	return nil
}

func repoRoot() string {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "../.."
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// kubectlBinaries returns the kubectl versions to test, by minor version.
// 1.33 and 1.27 are required.
func kubectlBinaries(t *testing.T) map[string]string {
	t.Helper()
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatal("kubectl is not on PATH")
	}
	real, err := filepath.EvalSymlinks(kubectl)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, v := range []string{"1.27", "1.28", "1.29", "1.30", "1.31", "1.32", "1.33"} {
		p := filepath.Join(filepath.Dir(real), "kubectl."+v)
		if _, err := os.Stat(p); err == nil {
			out[v] = p
		}
	}
	for _, v := range []string{"1.33", "1.27"} {
		if out[v] == "" {
			t.Fatalf("kubectl.%s not found beside %s", v, real)
		}
	}
	return out
}

// k runs one kubectl command and returns stdout and stderr.
type k struct {
	t   *testing.T
	bin string
	ns  string
}

func (c k) run(args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	full := append([]string{"--kubeconfig", kubeconfig}, args...)
	if c.ns != "" {
		full = append(full, "-n", c.ns)
	}
	cmd := exec.CommandContext(ctx, c.bin, full...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// ok runs a command that must succeed and returns its stdout.
func (c k) ok(args ...string) string {
	c.t.Helper()
	out, errOut, err := c.run(args...)
	if err != nil {
		c.t.Fatalf("kubectl %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// fails runs a command that must fail and returns its stderr.
func (c k) fails(args ...string) string {
	c.t.Helper()
	out, errOut, err := c.run(args...)
	if err == nil {
		c.t.Fatalf("kubectl %s succeeded, want failure\nstdout: %s", strings.Join(args, " "), out)
	}
	return errOut
}

func contains(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s: output does not contain %q:\n%s", what, w, got)
		}
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "obj.yaml")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
