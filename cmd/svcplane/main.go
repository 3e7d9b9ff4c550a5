// Command svcplane is the Kubernetes Service plane in one binary: the API
// server on etcd (`server`), everything on one machine (`up`), credentials
// (`kubeconfig`) and `version`. Each subcommand lives in its own file; this
// one only wires them.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"
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
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	root.PersistentFlags().AddGoFlagSet(klogFlags)
	root.AddCommand(newServerCommand(), newUpCommand(), newKubeconfigCommand(), newVersionCommand(), newBenchCommand(), newProxyCommand(), newNodeCommand())
	return root
}
