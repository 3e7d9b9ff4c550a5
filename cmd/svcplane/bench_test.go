package main

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/svcplane/svcplane/internal/bench"
)

// TestBenchTrafficChildArgs: the command line the traffic bench re-runs
// itself with inside its namespace parses back to the same settings.
func TestBenchTrafficChildArgs(t *testing.T) {
	want := bench.TrafficConfig{Nodes: 3, ProxyMode: "iptables", Streams: 4, Rounds: 2, Duration: 7 * time.Second, Latency: 1500 * time.Millisecond, KeepLogs: true}
	args := want.Args()
	if len(args) < 2 || args[0] != "bench" || args[1] != "traffic" {
		t.Fatalf("args %v: want bench traffic …", args)
	}
	cmd := newBenchTrafficCommand()
	if err := cmd.ParseFlags(args[2:]); err != nil {
		t.Fatal(err)
	}
	f := cmd.Flags()
	nodes, _ := f.GetInt("nodes")
	mode, _ := f.GetString("proxy-mode")
	streams, _ := f.GetInt("streams")
	rounds, _ := f.GetInt("rounds")
	d, _ := f.GetDuration("duration")
	lat, _ := f.GetDuration("latency-duration")
	keep, _ := f.GetBool("keep-logs")
	in, _ := f.GetBool("in-netns")
	got := bench.TrafficConfig{Nodes: nodes, ProxyMode: mode, Streams: streams, Rounds: rounds, Duration: d, Latency: lat, KeepLogs: keep}
	if got != want || !in {
		t.Errorf("parsed %+v (in-netns %v), want %+v (in-netns true)", got, in, want)
	}
}

// TestBenchUpstreamFlags: `bench nodes` and `bench server` take --against
// and the upstream binaries' flags, refuse an unknown --against, and say
// how to build kube-apiserver when it is missing, before starting
// anything.
func TestBenchUpstreamFlags(t *testing.T) {
	for _, newCmd := range []func() *cobra.Command{newBenchNodesCommand, newBenchServerCommand} {
		cmd := newCmd()
		f := cmd.Flags()
		if d, _ := f.GetString("upstream-dir"); d != bench.DefaultUpstreamDir() {
			t.Errorf("%s: --upstream-dir default %q", cmd.Name(), d)
		}
		if a, _ := f.GetString("against"); a != "svcplane" {
			t.Errorf("%s: --against default %q", cmd.Name(), a)
		}
		if err := cmd.ParseFlags([]string{"--against", "both", "--kube-controller-manager", "none", "--kube-apiserver-arg=--v=2", "--kube-apiserver-arg=--max-requests-inflight=800,x"}); err != nil {
			t.Fatal(err)
		}
		if args, _ := f.GetStringArray("kube-apiserver-arg"); len(args) != 2 || args[1] != "--max-requests-inflight=800,x" {
			t.Errorf("%s: --kube-apiserver-arg %v", cmd.Name(), args)
		}

		empty := t.TempDir()
		for args, want := range map[string]string{
			"--against kube": `--against "kube": want svcplane, upstream or both`,
			"--against upstream --upstream-dir " + empty: "no kube-apiserver at " + filepath.Join(empty, "kube-apiserver"),
		} {
			cmd := newCmd()
			cmd.SetArgs(strings.Fields(args))
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s %s: %v, want %q", cmd.Name(), args, err, want)
			}
		}
	}
}
