package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	genericapiserver "k8s.io/apiserver/pkg/server"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/svcplane/svcplane/internal/plane"
)

func newServerCommand() *cobra.Command {
	o := plane.NewServerOptions()
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Run the Kubernetes-compatible API server",
		Long: `Run the API server and its controllers. Without --etcd-servers it keeps
its data in an embedded etcd under --data-dir. It writes an admin kubeconfig
to <data-dir>/kubeconfig and serves until SIGTERM or SIGINT.`,
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
			fmt.Fprintf(cmd.OutOrStdout(), "svcplane server serving on %s; kubeconfig: %s\n", p.Server.URL, p.Server.Kubeconfig)
			return p.Run(ctx)
		},
	}
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	withLogging(cmd, &fss)
	withSections(cmd, &fss)
	return cmd
}
