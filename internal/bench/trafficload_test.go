package bench

import (
	"net"
	"strings"
	"testing"
	"time"
)

// The load generators on loopback in the test's own namespace (no root):
// what the sink counts and the round trips recorded are real.

func TestThroughputCountsWhatTheSinkReceived(t *testing.T) {
	here := hereEndpoint()
	l, err := here.listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	flows, err := throughput(here, startSink(l), l.Addr().String(), 3, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(flows) != 3 {
		t.Fatalf("%d flows, want 3", len(flows))
	}
	for _, f := range flows {
		if f.Bytes < bulkWrite || !strings.HasPrefix(f.From, "127.0.0.1:") || f.Last.Before(f.First) {
			t.Errorf("flow %+v: want ≥ one write from 127.0.0.1", f)
		}
	}
	if n, d := aggregate(flows); n <= 0 || d <= 0 {
		t.Errorf("aggregate %d bytes over %v", n, d)
	}
}

func TestThroughputToAClosedPortFails(t *testing.T) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	if _, err := throughput(hereEndpoint(), &sink{results: make(chan flowResult)}, addr, 1, 10*time.Millisecond); err == nil || !strings.Contains(err.Error(), "dial "+addr) {
		t.Errorf("err = %v, want a dial error naming %s", err, addr)
	}
}

func TestRequestResponseAlternatesTargets(t *testing.T) {
	here := hereEndpoint()
	var targets []string
	for i := 0; i < 2; i++ {
		l, err := here.listen("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		go serveEcho(l)
		targets = append(targets, l.Addr().String())
	}
	for _, mode := range []rrMode{keptAlive, newConnPerRequest} {
		res, err := requestResponse(here, targets, mode, time.Hour, 50)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if len(res) != 2 || len(res[0].RTTs) != 50 || len(res[1].RTTs) != 50 || res[0].ConnectFailures+res[1].ConnectFailures != 0 {
			t.Fatalf("%s: %+v, want 50 round trips each after the warm-up", mode, res)
		}
		if s := summarize(res[1].RTTs); s.P50 <= 0 || s.P99 < s.P50 {
			t.Errorf("%s: summary %+v", mode, s)
		}
	}
}

func TestRequestResponseToAServerThatCloses(t *testing.T) {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, err = requestResponse(hereEndpoint(), []string{l.Addr().String()}, keptAlive, time.Hour, 10)
	if err == nil || !strings.Contains(err.Error(), "from "+l.Addr().String()) {
		t.Errorf("err = %v, want a failed response from %s", err, l.Addr())
	}
}

func TestTrafficConfigValidate(t *testing.T) {
	good := TrafficConfig{Nodes: 2, ProxyMode: "nftables", Streams: 1, Rounds: 3, Duration: 5 * time.Second, Latency: 5 * time.Second}
	if err := good.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		change func(*TrafficConfig)
		want   string
	}{
		{func(c *TrafficConfig) { c.Nodes = 1 }, "--nodes 1: want at least 2"},
		{func(c *TrafficConfig) { c.ProxyMode = "none" }, `--proxy-mode "none": want nftables, iptables, ipvs or userspace`},
		{func(c *TrafficConfig) { c.Streams = 0 }, "--streams 0: want 1 to 64"},
		{func(c *TrafficConfig) { c.Rounds = 0 }, "--rounds 0: want 1 to 20"},
		{func(c *TrafficConfig) { c.Duration = 10 * time.Millisecond }, "--duration 10ms: want at least 1s"},
		{func(c *TrafficConfig) { c.Latency = 0 }, "--latency-duration 0s: want at least 1s"},
	} {
		c := good
		tc.change(&c)
		if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}
