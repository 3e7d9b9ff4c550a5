package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/svcplane/svcplane/internal/apiserver"
)

func newUpCommand() *cobra.Command {
	o := apiserver.NewOptions()
	nodes, proxyMode := 1, "nftables"
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Run the whole Service plane on this machine on an embedded etcd",
		Long: `Run everything svcplane has in one process on an embedded single-member
etcd under --data-dir (default ./svcplane-data): the API server with its
controllers, --nodes local simulated nodes (node agent) and, for a single
local node, its service proxy (--proxy-mode).
It writes an admin kubeconfig there and prints the line to use it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkNodeCount(nodes, 0); err != nil {
				return err
			}
			if len(o.EtcdServers) > 0 {
				return fmt.Errorf("svcplane up always runs the embedded etcd; use `svcplane server --etcd-servers` for an external cluster")
			}
			ctx := genericapiserver.SetupSignalContext()
			s, err := apiserver.New(ctx, o)
			if err != nil {
				return err
			}
			if err := addLocalNodes(s, nodes); err != nil {
				return err
			}
			if err := addLocalProxy(s, nodes, proxyMode); err != nil {
				return err
			}
			abs, err := filepath.Abs(s.Kubeconfig)
			if err != nil {
				abs = s.Kubeconfig
			}
			fmt.Fprintf(cmd.OutOrStdout(), "svcplane is up on %s\nexport KUBECONFIG=%s\n", s.URL, abs)
			return s.Run(ctx)
		},
	}
	o.AddFlags(cmd.Flags())
	cmd.Flags().Lookup("etcd-servers").Hidden = true
	cmd.Flags().IntVar(&nodes, "nodes", nodes, "Local simulated nodes to run with the node credentials (0: none): --node-name, or <node-name>-<i> for several.")
	addUpProxyFlags(cmd.Flags(), &proxyMode)
	return cmd
}
