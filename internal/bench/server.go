package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// ServerConfig is `svcplane bench server`'s settings.
type ServerConfig struct {
	// Runs is the number of fresh starts.
	Runs int
	// Idle is how long the server idles before its RSS is read, at
	// start and again after the kubectl round.
	Idle time.Duration
	// Kubectl is the kubectl binary of the kubectl round; "" skips it.
	Kubectl string
}

// Server starts `svcplane server` on a fresh embedded etcd cfg.Runs
// times and prints the time to /readyz 200, the RSS after idling, then
// the RSS after the kubectl round and as long again idle.
func Server(out, progress io.Writer, cfg ServerConfig) error {
	p := startProgress(progress)
	defer p.stop()
	for i := 0; i < cfg.Runs; i++ {
		p.phase(fmt.Sprintf("server run %d of %d", i+1, cfg.Runs), nil)
		r, err := serverOnce(cfg.Idle, cfg.Kubectl)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "run %d: readyz 200 after %.3fs; RSS after %s idle: %s", i+1, r.ready.Seconds(), cfg.Idle, r.idle)
		if r.commands > 0 {
			fmt.Fprintf(out, "; after %d kubectl commands and %s idle: %s", r.commands, cfg.Idle, r.afterKubectl)
		}
		fmt.Fprintln(out)
	}
	return nil
}

// serverRun is one start's figures.
type serverRun struct {
	ready        time.Duration
	idle         memory
	commands     int
	afterKubectl memory
}

// memory is a process's VmRSS with its anonymous and file-backed parts
// (the file part is mostly the binary's own pages).
type memory struct{ rss, anon, file int64 }

func readMemory(pid int) (memory, error) {
	var m memory
	var err error
	if m.rss, err = statusBytes(pid, "VmRSS"); err != nil {
		return m, err
	}
	if m.anon, err = statusBytes(pid, "RssAnon"); err != nil {
		return m, err
	}
	m.file, err = statusBytes(pid, "RssFile")
	return m, err
}

func (m memory) String() string {
	return fmt.Sprintf("RSS %.1f MB (anon %.1f, file %.1f)", mb(m.rss), mb(m.anon), mb(m.file))
}

func mb(b int64) float64 { return float64(b) / (1 << 20) }

// server is a `svcplane server` process on a fresh data dir.
type server struct {
	proc   *exec.Cmd
	dir    string
	config *rest.Config
	client kubernetes.Interface
	// ready is the time from exec to the first 200 from /readyz.
	ready time.Duration
}

// startServer starts a server process with extra flags on a new data dir
// and waits for /readyz.
func startServer(extra ...string) (*server, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "svcplane-bench-")
	if err != nil {
		return nil, err
	}
	args := append([]string{"server", "--data-dir", dir, "--secure-port", "0", "--bind-address", "127.0.0.1"}, extra...)
	b := &server{proc: exec.Command(self, args...), dir: dir}
	dieWithParent(b.proc)
	start := time.Now()
	if err := b.startAndConnect(); err != nil {
		b.stop()
		return nil, err
	}
	if err := b.waitReady(start, 60*time.Second); err != nil {
		b.stop()
		return nil, err
	}
	return b, nil
}

// startAndConnect starts the process, waits for its "serving on" line and
// makes the admin client from its kubeconfig.
func (b *server) startAndConnect() error {
	stdout, err := b.proc.StdoutPipe()
	if err != nil {
		return err
	}
	if err := b.proc.Start(); err != nil {
		return err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, "serving on") {
		return fmt.Errorf("server did not start: %q %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	if b.config, err = clientcmd.BuildConfigFromFlags("", filepath.Join(b.dir, "kubeconfig")); err != nil {
		return err
	}
	// The benches read core/v1 Endpoints on purpose; no deprecation lines.
	b.config.WarningHandler = rest.NoWarnings{}
	b.client, err = kubernetes.NewForConfig(b.config)
	return err
}

// waitReady polls /readyz until it answers 200 and records the time since
// start.
func (b *server) waitReady(start time.Time, timeout time.Duration) error {
	for deadline := start.Add(timeout); ; {
		_, err := b.client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(context.Background())
		if err == nil {
			b.ready = time.Since(start)
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %s: %v", timeout, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stop ends the server with SIGTERM and removes its data dir.
func (b *server) stop() {
	if b.proc.Process != nil {
		_ = b.proc.Process.Signal(syscall.SIGTERM)
		_ = b.proc.Wait()
	}
	os.RemoveAll(b.dir)
}

// fastClient is an admin client of b without client-side rate limits,
// speaking protobuf.
func (b *server) fastClient() (kubernetes.Interface, error) {
	cfg := rest.CopyConfig(b.config)
	cfg.QPS, cfg.Burst = -1, 0
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	return kubernetes.NewForConfig(cfg)
}

// serverOnce measures one start: time to /readyz 200, RSS after idling,
// then (kubectl not "") RSS after the kubectl round and idling again.
func serverOnce(idle time.Duration, kubectl string) (serverRun, error) {
	b, err := startServer()
	if err != nil {
		return serverRun{}, err
	}
	defer b.stop()
	r := serverRun{ready: b.ready}
	time.Sleep(idle)
	if r.idle, err = readMemory(b.proc.Process.Pid); err != nil || kubectl == "" {
		return r, err
	}
	if r.commands, err = runKubectlRound(kubectl, b); err != nil {
		return r, err
	}
	time.Sleep(idle)
	r.afterKubectl, err = readMemory(b.proc.Process.Pid)
	return r, err
}
