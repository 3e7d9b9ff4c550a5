package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestHelpSections: server, up, node and dns list their flags by section
// with the component-base logging flags, and none of klog's legacy ones.
func TestHelpSections(t *testing.T) {
	for cmd, sections := range map[string][]string{
		"server": {"Generic flags:", "Etcd flags:", "Secure serving flags:", "Auditing flags:", "Controllers flags:", "Memory flags:", "Logs flags:"},
		"up":     {"Generic flags:", "Etcd flags:", "Nodes flags:", "Dns flags:", "Memory flags:", "Logs flags:"},
		"node":   {"Generic flags:", "Logs flags:"},
		"dns":    {"Generic flags:", "Dns flags:", "Logs flags:"},
	} {
		root := newRootCommand()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetArgs([]string{cmd, "--help"})
		if err := root.Execute(); err != nil {
			t.Fatalf("%s --help: %v", cmd, err)
		}
		help := out.String()
		for _, want := range append(sections, "--logging-format", "--vmodule", "-v, --v") {
			if !strings.Contains(help, want) {
				t.Errorf("%s --help lacks %q", cmd, want)
			}
		}
		for _, legacy := range []string{"--logtostderr", "--alsologtostderr", "--log_dir", "--skip_headers", "--add_dir_header"} {
			if strings.Contains(help, legacy) {
				t.Errorf("%s --help lists klog's legacy %s", cmd, legacy)
			}
		}
	}
}
