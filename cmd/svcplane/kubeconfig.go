package main

import (
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/svcplane/svcplane/internal/apiserver"
	"github.com/svcplane/svcplane/internal/plane"
)

type kubeconfigFlags struct {
	dataDir, user, server, out string
	groups                     []string
}

func newKubeconfigCommand() *cobra.Command {
	f := kubeconfigFlags{dataDir: apiserver.NewOptions().DataDir}
	cmd := &cobra.Command{
		Use:   "kubeconfig --user NAME [--group GROUP]...",
		Short: "Mint a kubeconfig for an identity, signed by the cluster CA in --data-dir",
		Example: `  svcplane kubeconfig --user system:node:n1 --group system:nodes -o node.kubeconfig
  svcplane kubeconfig --user system:kube-proxy --group system:node-proxier`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd.OutOrStdout()) },
	}
	cmd.Flags().StringVar(&f.dataDir, "data-dir", f.dataDir, "The server's data dir (holds the cluster CA).")
	cmd.Flags().StringVar(&f.user, "user", "", "User name (certificate CN).")
	cmd.Flags().StringSliceVar(&f.groups, "group", nil, "Group (certificate O); repeatable.")
	cmd.Flags().StringVar(&f.server, "server", "", "Server URL; default: the one in <data-dir>/kubeconfig.")
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "File to write; default standard output.")
	return cmd
}

// run writes the kubeconfig to --output, or through a temporary file to w.
func (f *kubeconfigFlags) run(w io.Writer) error {
	if f.out != "" && f.out != "-" {
		return plane.WriteKubeconfig(f.dataDir, f.out, f.user, f.groups, f.server)
	}
	tmp, err := os.CreateTemp("", "svcplane-kubeconfig-")
	if err != nil {
		return err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	if err := plane.WriteKubeconfig(f.dataDir, tmp.Name(), f.user, f.groups, f.server); err != nil {
		return err
	}
	b, err := os.ReadFile(tmp.Name())
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}
