package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/svcplane/svcplane/internal/proxy/proxytest/netlab"
	"github.com/svcplane/svcplane/internal/testutil"
)

// bin is the svcplane binary built once for the package.
var bin string

func TestMain(m *testing.M) {
	// Re-executed in a lab namespace, the binary plays netlab's echo and
	// dial roles (proxy_test.go).
	netlab.Main(func() int { return buildAndRun(m) }, nil)
}

// buildAndRun builds the binary once, runs the tests and removes it. Under
// -short it builds nothing and every test skips (requireRoot).
func buildAndRun(m *testing.M) int {
	flag.Parse()
	if testing.Short() {
		fmt.Println("test/e2e: -short: no binary built; every test skips")
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "svcplane-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin = filepath.Join(dir, "svcplane")
	_, file, _, _ := runtime.Caller(0)
	build := exec.Command("go", "build", "-o", bin, "./cmd/svcplane")
	build.Dir = filepath.Join(filepath.Dir(file), "..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// requireRoot skips a test under -short, and one that needs root when not
// root; CI runs as root.
func requireRoot(t *testing.T) {
	t.Helper()
	testutil.SkipShort(t, "e2e test: needs root, network namespaces and the built binary")
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces")
	}
	for _, tool := range []string{"ip", "etcd"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not installed (.ci/run installs iproute2 and etcd-server): %v", tool, err)
		}
	}
}

// netns is a network namespace made for one test.
type netns struct{ name string }

// newNetns creates a namespace whose lo is up and also carries addrs (/32
// each); it has no other interface and no default route.
func newNetns(t *testing.T, addrs ...string) *netns {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	n := &netns{name: "svcplane-e2e-" + hex.EncodeToString(b)}
	run(t, "ip", "netns", "add", n.name)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", n.name).Run() })
	run(t, "ip", "-n", n.name, "link", "set", "lo", "up")
	for _, a := range addrs {
		run(t, "ip", "-n", n.name, "addr", "add", a+"/32", "dev", "lo")
	}
	return n
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// proc is a process running in a namespace.
type proc struct {
	cmd  *exec.Cmd
	log  *logBuffer
	done chan struct{}
}

// logBuffer is a process's output, read while the process still writes.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// start runs name args inside n; the process is killed when the test ends.
func (n *netns) start(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	return startCmd(t, name, exec.Command("ip", append([]string{"netns", "exec", n.name, name}, args...)...))
}

// startHost runs name args on the host; it is killed when the test ends.
func startHost(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	return startCmd(t, filepath.Base(name), exec.Command(name, args...))
}

// startCmd starts cmd, collecting its output; it is killed when the test
// ends, and its log's tail is shown if the test failed.
func startCmd(t *testing.T, name string, cmd *exec.Cmd) *proc {
	t.Helper()
	p := &proc{cmd: cmd, log: &logBuffer{}, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			t.Logf("%s log (tail):\n%s", name, tail(p.log.String()))
		}
	})
	return p
}

// kubectl runs kubectl inside n with kubeconfig, stdin on its input.
func (n *netns) kubectl(kubeconfig, stdin string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", n.name, "kubectl",
		"--kubeconfig", kubeconfig}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// waitReady waits until the API server p (run in n, kubeconfig its admin
// credentials) answers /readyz, failing at once if p exits.
func (n *netns) waitReady(t *testing.T, p *proc, kubeconfig string) {
	t.Helper()
	waitFor(t, "svcplane ready", 60*time.Second, func() bool {
		select {
		case <-p.done:
			t.Fatalf("svcplane exited:\n%s", tail(p.log.String()))
		default:
		}
		_, err := n.kubectl(kubeconfig, "", "get", "--raw", "/readyz")
		return err == nil
	})
}

// signal sends sig and waits for the process to exit.
func (p *proc) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := p.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	p.wait(t, sig)
}

// wait waits for the process to exit after sig was sent.
func (p *proc) wait(t *testing.T, sig syscall.Signal) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("process did not exit within 30 s of %v", sig)
	}
}

// exec runs a command inside n and returns its stdout.
func (n *netns) exec(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", n.name, name}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%v: %s", err, errOut.String())
	}
	return out.String(), nil
}

func tail(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return strings.Join(lines, "\n")
}

// waitFor polls cond until it holds (testutil.Eventually), failing after
// limit; it returns how long it took.
func waitFor(t *testing.T, what string, limit time.Duration, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	testutil.Eventually(t, limit, what, cond)
	return time.Since(start)
}
