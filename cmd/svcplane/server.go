package main

import (
	"fmt"

	"github.com/spf13/cobra"
	genericapiserver "k8s.io/apiserver/pkg/server"

	"github.com/svcplane/svcplane/internal/apiserver"
)

func newServerCommand() *cobra.Command {
	o := apiserver.NewOptions()
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Run the Kubernetes-compatible API server",
		Long: `Run the API server. Without --etcd-servers it keeps its data in an
embedded etcd under --data-dir. It writes an admin kubeconfig to
<data-dir>/kubeconfig and serves until SIGTERM or SIGINT.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := genericapiserver.SetupSignalContext()
			s, err := apiserver.New(ctx, o)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "svcplane server serving on %s; kubeconfig: %s\n", s.URL, s.Kubeconfig)
			return s.Run(ctx)
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}
