package main

import (
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	genericapiserver "k8s.io/apiserver/pkg/server"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/svcplane/svcplane/internal/plane"
)

func newUpCommand() *cobra.Command {
	o := plane.NewUpOptions()
	cmd := &cobra.Command{
		Use:   "up",
		Short: "Run the whole Service plane on this machine on an embedded etcd",
		Long: `Run everything svcplane has in one process on an embedded single-member
etcd under --data-dir (default ./svcplane-data): the API server with its
controllers, --nodes local simulated nodes (node agent) and, for a single
local node, its service proxy (--proxy-mode). With --runtime netns (root)
every node is a network namespace on a host bridge with its own service
proxy, and pods run in namespaces of their own.
It writes an admin kubeconfig there and prints the line to use it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := genericapiserver.SetupSignalContext()
			if err := o.Validate(); err != nil {
				return err
			}
			plane.ApplyGCPercent(o.GCPercent, os.Getenv)
			p, err := plane.New(ctx, o)
			if err != nil {
				return err
			}
			abs, err := filepath.Abs(p.Server.Kubeconfig)
			if err != nil {
				abs = p.Server.Kubeconfig
			}
			if err := p.Announce(cmd.OutOrStdout(), p.Banner(abs)); err != nil {
				return err
			}
			return p.Run(ctx)
		},
	}
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	withLogging(cmd, &fss)
	withSections(cmd, &fss)
	return cmd
}
