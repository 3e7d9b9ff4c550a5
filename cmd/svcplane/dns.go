package main

import (
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/svcplane/svcplane/internal/apiserver"
	"github.com/svcplane/svcplane/internal/dns"
)

func newDNSCommand() *cobra.Command {
	c := dns.Defaults()
	var kubeconfig, cpuProfile, memProfile string
	cmd := &cobra.Command{
		Use:   "dns",
		Short: "Run the cluster DNS (Services by name, the Kubernetes DNS specification) against an API server",
		Long: `Serve the cluster domain from the API server's Services and EndpointSlices,
as the Kubernetes DNS-Based Service Discovery specification (schema 1.1.0)
says, and forward other names to the host's resolvers. Health, readiness
and Prometheus metrics are CoreDNS's (ports 8080, 8181 and 9153; series
coredns_*). Its identity is kubeadm's CoreDNS ServiceAccount, which the
ClusterRole system:coredns allows to list and watch what the records need:
  svcplane kubeconfig --user ` + apiserver.UserCoreDNS + ` -o dns.kubeconfig
` + "`svcplane up`" + ` runs it in-process, applies that ServiceAccount, ClusterRole
and ClusterRoleBinding as kubeadm does, and points kube-system/kube-dns at it.`,
		Example: `  svcplane dns --kubeconfig dns.kubeconfig --dns-bind-address 127.0.0.1:1053 --dns-forward none
  dig @127.0.0.1 -p 1053 kubernetes.default.svc.cluster.local`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := c.Validate(); err != nil {
				return err
			}
			cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
			if err != nil {
				return err
			}
			cfg.ContentType = "application/vnd.kubernetes.protobuf" // a fraction of JSON's decode cost and garbage
			client, err := kubernetes.NewForConfig(cfg)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if cpuProfile != "" {
				f, err := os.Create(cpuProfile)
				if err != nil {
					return err
				}
				defer f.Close()
				if err := pprof.StartCPUProfile(f); err != nil {
					return err
				}
				defer pprof.StopCPUProfile()
			}
			if memProfile != "" {
				defer func() {
					runtime.GC() // the profile shows the heap as of the last collection
					if f, err := os.Create(memProfile); err == nil {
						_ = pprof.WriteHeapProfile(f)
						_ = f.Close()
					}
				}()
			}
			return dns.Run(ctx, c, client)
		},
	}
	var fss cliflag.NamedFlagSets
	fss.FlagSet("generic").StringVar(&kubeconfig, "kubeconfig", "", "Kubeconfig of the DNS's identity.")
	c.AddFlags(fss.FlagSet("dns"))
	fss.FlagSet("generic").StringVar(&cpuProfile, "cpuprofile", "", "Write a CPU profile to this file until the process ends (for svcplane bench dns --cpuprofile).")
	fss.FlagSet("generic").StringVar(&memProfile, "memprofile", "", "Write a heap profile to this file when the process ends (for svcplane bench dns --memprofile).")
	_ = fss.FlagSet("generic").MarkHidden("cpuprofile")
	_ = fss.FlagSet("generic").MarkHidden("memprofile")
	withLogging(cmd, &fss)
	withSections(cmd, &fss)
	return cmd
}
