package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/svcplane/svcplane/internal/version"
)

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			v := version.Get()
			fmt.Fprintf(cmd.OutOrStdout(), "svcplane %s (Kubernetes API %s.%s, %s, %s)\n",
				v.GitVersion, v.Major, v.Minor, v.GoVersion, v.Platform)
		},
	}
}
