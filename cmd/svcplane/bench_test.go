package main

import (
	"testing"
	"time"

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
