package main

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

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

func newBenchCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Measure svcplane on this machine and print the figures"}
	cmd.AddCommand(newBenchServerCommand(), newBenchServicesCommand(), newBenchProxyCommand())
	return cmd
}

func newBenchServerCommand() *cobra.Command {
	var runs int
	var idle time.Duration
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Start `svcplane server` on a fresh embedded etcd; print time to /readyz 200 and idle RSS",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			self, err := os.Executable()
			if err != nil {
				return err
			}
			for i := 0; i < runs; i++ {
				ready, rss, err := benchServerOnce(self, idle)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "run %d: readyz 200 after %.3fs; RSS after %s idle: %.1f MB\n",
					i+1, ready.Seconds(), idle, float64(rss)/(1<<20))
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&runs, "runs", 3, "Number of fresh starts.")
	cmd.Flags().DurationVar(&idle, "idle", 10*time.Second, "How long the server idles before RSS is read.")
	return cmd
}

// benchServer is a `svcplane server` process on a fresh data dir.
type benchServer struct {
	proc   *exec.Cmd
	dir    string
	config *rest.Config
	client kubernetes.Interface
	// ready is the time from exec to the first 200 from /readyz.
	ready time.Duration
}

// startBenchServer starts a server process with extra flags on a new data
// dir and waits for /readyz.
func startBenchServer(self string, extra ...string) (*benchServer, error) {
	dir, err := os.MkdirTemp("", "svcplane-bench-")
	if err != nil {
		return nil, err
	}
	args := append([]string{"server", "--data-dir", dir, "--secure-port", "0", "--bind-address", "127.0.0.1"}, extra...)
	b := &benchServer{proc: exec.Command(self, args...), dir: dir}
	dieWithParent(b.proc)
	stdout, err := b.proc.StdoutPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := b.proc.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, "serving on") {
		b.stop()
		return nil, fmt.Errorf("server did not start: %q %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	if b.config, err = clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "kubeconfig")); err == nil {
		b.client, err = kubernetes.NewForConfig(b.config)
	}
	if err != nil {
		b.stop()
		return nil, err
	}
	for deadline := start.Add(60 * time.Second); ; {
		_, err := b.client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(context.Background())
		if err == nil {
			b.ready = time.Since(start)
			return b, nil
		}
		if time.Now().After(deadline) {
			b.stop()
			return nil, fmt.Errorf("not ready after 60s: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// stop ends the server with SIGTERM and removes its data dir.
func (b *benchServer) stop() {
	_ = b.proc.Process.Signal(syscall.SIGTERM)
	_ = b.proc.Wait()
	os.RemoveAll(b.dir)
}

// benchServerOnce measures one start: time to /readyz 200, then RSS after
// idling.
func benchServerOnce(self string, idle time.Duration) (time.Duration, int64, error) {
	b, err := startBenchServer(self)
	if err != nil {
		return 0, 0, err
	}
	defer b.stop()
	time.Sleep(idle)
	rss, err := rssBytes(b.proc.Process.Pid)
	return b.ready, rss, err
}

// rssBytes reads VmRSS of a process from /proc.
func rssBytes(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			var kb int64
			_, err := fmt.Sscanf(strings.TrimPrefix(l, "VmRSS:"), "%d", &kb)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}
