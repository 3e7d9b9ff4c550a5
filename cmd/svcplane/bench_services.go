package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

func newBenchServicesCommand() *cobra.Command {
	var n, clients int
	var headless, protobuf bool
	var extra []string
	var kubeconfig string
	cmd := &cobra.Command{
		Use:   "services",
		Short: "Create N ClusterIP Services with W concurrent clients on a fresh server; print rate, p50/p99 and check uniqueness",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var cfg rest.Config
			if kubeconfig != "" {
				c, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
				if err != nil {
					return err
				}
				cfg = *c
			} else {
				self, err := os.Executable()
				if err != nil {
					return err
				}
				b, err := startBenchServer(self, extra...)
				if err != nil {
					return err
				}
				defer b.stop()
				cfg = *b.config
			}
			cfg.QPS, cfg.Burst = -1, 0 // no client-side throttling
			if protobuf {
				cfg.ContentType = "application/vnd.kubernetes.protobuf"
				cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
			}
			client, err := kubernetes.NewForConfig(&cfg)
			if err != nil {
				return err
			}
			return benchServices(cmd.OutOrStdout(), client, n, clients, headless)
		},
	}
	cmd.Flags().IntVar(&n, "services", 5000, "Number of Services to create.")
	cmd.Flags().IntVar(&clients, "clients", 32, "Concurrent clients.")
	cmd.Flags().BoolVar(&protobuf, "protobuf", true, "Talk protobuf, as client-go programs of core types usually do (false: JSON, as kubectl).")
	cmd.Flags().BoolVar(&headless, "headless", false, "Create headless Services (no ClusterIP) for comparison.")
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "Run against this running server instead of starting a fresh one (its default namespace must have no bench-* Services).")
	cmd.Flags().StringArrayVar(&extra, "server-arg", nil, "Extra flag for the server (repeatable; not split at commas), e.g. --server-arg=--service-ip-allocator=bitmap.")
	return cmd
}

func benchServices(out io.Writer, client kubernetes.Interface, n, clients int, headless bool) error {
	ctx := context.Background()
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var firstErr error
	var errOnce sync.Once
	start := time.Now()
	var wg sync.WaitGroup
	for w := 0; w < clients; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				svc := &corev1.Service{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("bench-%d", i)},
					Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
				}
				if headless {
					svc.Spec.ClusterIP = corev1.ClusterIPNone
				}
				t := time.Now()
				_, err := client.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{})
				lat[i] = time.Since(t)
				if err != nil {
					errOnce.Do(func() { firstErr = fmt.Errorf("creating %s: %w", svc.Name, err) })
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return firstErr
	}
	slices.Sort(lat)
	kind := "ClusterIP"
	if headless {
		kind = "headless"
	}
	fmt.Fprintf(out, "%d %s Services with %d clients in %.2fs: %.0f Services/s, p50 %.1f ms, p99 %.1f ms\n",
		n, kind, clients, elapsed.Seconds(), float64(n)/elapsed.Seconds(),
		ms(lat[n/2]), ms(lat[min(n-1, n*99/100)]))
	return checkUnique(out, ctx, client, n, headless)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// checkUnique lists the Services and fails if two share a ClusterIP.
func checkUnique(out io.Writer, ctx context.Context, client kubernetes.Interface, n int, headless bool) error {
	list, err := client.CoreV1().Services("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	seen := map[string]string{}
	for _, s := range list.Items {
		ip := s.Spec.ClusterIP
		if ip == "" || ip == corev1.ClusterIPNone || s.Name == "kubernetes" {
			continue
		}
		if other, dup := seen[ip]; dup {
			return fmt.Errorf("DUPLICATE ClusterIP %s on %s and %s", ip, other, s.Name)
		}
		seen[ip] = s.Name
	}
	if !headless && len(seen) != n {
		return fmt.Errorf("%d Services have a ClusterIP, want %d", len(seen), n)
	}
	fmt.Fprintf(out, "uniqueness: %d distinct ClusterIPs, no duplicates\n", len(seen))
	return nil
}
