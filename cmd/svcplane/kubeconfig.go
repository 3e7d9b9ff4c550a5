package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/svcplane/svcplane/internal/apiserver"
	"github.com/svcplane/svcplane/internal/kubeconfig"
	"github.com/svcplane/svcplane/internal/pki"
)

func newKubeconfigCommand() *cobra.Command {
	var dataDir, user, server, out string
	var groups []string
	cmd := &cobra.Command{
		Use:   "kubeconfig --user NAME [--group GROUP]...",
		Short: "Mint a kubeconfig for an identity, signed by the cluster CA in --data-dir",
		Example: `  svcplane kubeconfig --user system:node:n1 --group system:nodes -o node.kubeconfig
  svcplane kubeconfig --user system:kube-proxy --group system:node-proxier`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if user == "" {
				return fmt.Errorf("--user is required")
			}
			o := apiserver.NewOptions()
			o.DataDir = dataDir
			if _, err := os.Stat(o.PKIDir()); err != nil {
				return fmt.Errorf("no cluster CA in %s (start `svcplane server` or `svcplane up` with this --data-dir first): %w", o.PKIDir(), err)
			}
			ca, err := pki.LoadOrCreateCA(o.PKIDir(), "svcplane-ca")
			if err != nil {
				return err
			}
			name := "client-" + safeName(user)
			certFile, keyFile, err := ca.EnsureClient(o.PKIDir(), name, user, groups)
			if err != nil {
				return err
			}
			if server == "" {
				if server, err = kubeconfig.ServerOf(o.KubeconfigPath()); err != nil {
					return err
				}
			}
			target := out
			if target == "" || target == "-" {
				f, err := os.CreateTemp("", "svcplane-kubeconfig-")
				if err != nil {
					return err
				}
				f.Close()
				defer os.Remove(f.Name())
				target = f.Name()
			}
			c := kubeconfig.Config{Server: server, CAFile: ca.CertFile, User: user, CertFile: certFile, KeyFile: keyFile}
			if err := kubeconfig.Write(target, c); err != nil {
				return err
			}
			if out == "" || out == "-" {
				b, err := os.ReadFile(target)
				if err != nil {
					return err
				}
				_, err = cmd.OutOrStdout().Write(b)
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", apiserver.NewOptions().DataDir, "The server's data dir (holds the cluster CA).")
	cmd.Flags().StringVar(&user, "user", "", "User name (certificate CN).")
	cmd.Flags().StringSliceVar(&groups, "group", nil, "Group (certificate O); repeatable.")
	cmd.Flags().StringVar(&server, "server", "", "Server URL; default: the one in <data-dir>/kubeconfig.")
	cmd.Flags().StringVarP(&out, "output", "o", "", "File to write; default standard output.")
	return cmd
}

func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			b[i] = '_'
		}
	}
	return string(b)
}
