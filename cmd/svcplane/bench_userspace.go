package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func benchUserspace(cmd *cobra.Command, inNetns bool) error {
	return fmt.Errorf("userspace bench: not yet")
}
