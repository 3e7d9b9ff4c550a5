package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/klog/v2"

	"github.com/svcplane/svcplane/internal/plane"
)

func newNodeCommand() *cobra.Command {
	o := plane.NewNodeOptions()
	var kubeconfig string
	cmd := &cobra.Command{
		Use:   "node",
		Short: "Run N nodes (kubelet heartbeats, pods on the simulated or the netns runtime) in one process",
		Long: `Run the node agent for --nodes simulated nodes against an API server. It
registers each Node, renews its Lease in kube-node-lease, and runs the pods
bound to it on the simulated runtime (IPs from the node's pod CIDRs,
readiness after the readinessProbe's initialDelaySeconds), or with
--runtime netns (root) in network namespaces on a host bridge, with their
containers running and, given --proxy-mode and --proxy-kubeconfig, a
service proxy per node. Use the
credentials the server writes: <data-dir>/node-kubeconfig (user
system:node:<--node-name of the server>, under the Node authorizer and
NodeRestriction) for that one node, <data-dir>/node-simulator-kubeconfig
(group svcplane:node-simulators: the system:node role's rights for every
node) for more; without --kubeconfig, the one that fits --nodes in
./svcplane-data. Each node serves its kubelet API (--kubelet-api) on
--kubelet-address, a free port each, so that kubectl logs, exec and
port-forward reach it through the API server; simulated pods have an
empty log and refuse exec and port-forward (no process runs in them).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			names := o.Names(plane.DefaultNodeName())
			if kubeconfig == "" {
				kubeconfig = "svcplane-data/node-kubeconfig"
				if len(names) > 1 {
					kubeconfig = "svcplane-data/" + plane.NodeSimulatorKubeconfig
				}
			}
			cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if o.PprofAddr != "" {
				go servePprof(o.PprofAddr)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "svcplane node: %d node(s) %s…, runtime %s\n", len(names), names[0], o.Runtime)
			return plane.RunNodes(ctx, o, cfg, plane.DefaultNodeName())
		},
	}
	var fss cliflag.NamedFlagSets
	fs := fss.FlagSet("generic")
	fs.StringVar(&kubeconfig, "kubeconfig", "", "Kubeconfig with the node credentials (default: svcplane-data/node-kubeconfig for one node, svcplane-data/node-simulator-kubeconfig for more).")
	o.AddFlags(fs)
	withLogging(cmd, &fss)
	withSections(cmd, &fss)
	return cmd
}

func servePprof(addr string) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	l, err := net.Listen("tcp", addr)
	if err != nil {
		klog.ErrorS(err, "pprof not served")
		return
	}
	_ = http.Serve(l, mux)
}
