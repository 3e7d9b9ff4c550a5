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
	"k8s.io/client-go/tools/clientcmd"
)

func newBenchCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Measure svcplane on this machine and print the figures"}
	cmd.AddCommand(newBenchServerCommand(), newBenchProxyCommand())
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

// benchServerOnce starts a server process on a new data dir and measures
// from exec to the first 200 from /readyz, then its RSS after idling.
func benchServerOnce(self string, idle time.Duration) (time.Duration, int64, error) {
	dir, err := os.MkdirTemp("", "svcplane-bench-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(dir)
	p := exec.Command(self, "server", "--data-dir", dir, "--secure-port", "0", "--bind-address", "127.0.0.1")
	stdout, err := p.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	if err := p.Start(); err != nil {
		return 0, 0, err
	}
	defer func() {
		_ = p.Process.Signal(syscall.SIGTERM)
		_ = p.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, "serving on") {
		return 0, 0, fmt.Errorf("server did not start: %q %v", line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "kubeconfig"))
	if err != nil {
		return 0, 0, err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return 0, 0, err
	}
	var ready time.Duration
	for deadline := start.Add(60 * time.Second); ; {
		_, err := client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(context.Background())
		if err == nil {
			ready = time.Since(start)
			break
		}
		if time.Now().After(deadline) {
			return 0, 0, fmt.Errorf("not ready after 60s: %v", err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(idle)
	rss, err := rssBytes(p.Process.Pid)
	return ready, rss, err
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
