// Command svcplane is the Kubernetes Service plane in one binary:
//
//	server      the API server and its controllers, on an embedded etcd or --etcd-servers
//	up          everything on one machine: server + local simulated nodes + their proxy
//	node        N simulated nodes (node agent) against any API server
//	proxy       the service proxy of one node (nftables, iptables, ipvs, userspace)
//	dns         the cluster DNS (Services by name) against any API server
//	kubeconfig  credentials for an identity, signed by the cluster CA
//	bench       the benchmarks (server, services, nodes, deployment, proxy modes)
//	version     the version served at /version
//
// Each subcommand lives in its own file and only turns flags into a Config
// for the package that runs it (internal/plane, internal/proxy/app,
// internal/bench); this one only wires them.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := newRootCommand().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "svcplane",
		Short:         "The Kubernetes Service plane in one binary",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newServerCommand(), newUpCommand(), newKubeconfigCommand(), newVersionCommand(), newBenchCommand(), newProxyCommand(), newNodeCommand(), newDNSCommand())
	return root
}
