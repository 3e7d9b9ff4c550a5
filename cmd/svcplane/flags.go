package main

import (
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/featuregate"
	logsapi "k8s.io/component-base/logs/api/v1"
)

// withSections puts the flag sections on cmd and makes its usage and
// --help list them section by section ("Generic flags:", "Etcd flags:",
// …), as Kubernetes' own components print theirs.
func withSections(cmd *cobra.Command, fss *cliflag.NamedFlagSets) {
	for _, fs := range fss.FlagSets {
		cmd.Flags().AddFlagSet(fs)
	}
	cols, _, err := term.GetSize(int(os.Stdout.Fd()))
	if err != nil {
		cols = 0 // not a terminal: no wrapping
	}
	cliflag.SetUsageAndHelpFunc(cmd, *fss, cols)
}

// withLogging adds the "logs" section, the logging flags of Kubernetes'
// components (component-base logs/api/v1: -v, --vmodule,
// --logging-format text|json, --log-flush-frequency, …), and applies them
// before cmd runs.
func withLogging(cmd *cobra.Command, fss *cliflag.NamedFlagSets) {
	addLogFormats()
	c := logsapi.NewLoggingConfiguration()
	logsapi.AddFlags(c, fss.FlagSet("logs"))
	run := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		fg := featuregate.NewFeatureGate()
		if err := logsapi.AddFeatureGates(fg); err != nil {
			return err
		}
		if err := logsapi.ValidateAndApply(c, fg); err != nil {
			return err
		}
		return run(cmd, args)
	}
}
