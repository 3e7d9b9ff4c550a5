package bench

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
)

// measure prints the throughput figures (veth pair, pod IP, ClusterIP)
// and the request/response latencies (pod IP and ClusterIP, kept-alive
// and new connections).
func (lab *trafficLab) measure(out io.Writer, p *progress, c TrafficConfig) error {
	client := nsEndpoint{lab.client.ns}
	hostPort := func(ip string, port int) string { return net.JoinHostPort(ip, strconv.Itoa(port)) }
	fmt.Fprintf(out, "throughput: %d stream(s) of bulk TCP (%d KiB writes) for %s each; the bytes the server received over the time it received them\n",
		c.Streams, bulkWrite>>10, c.Duration)

	p.phase("throughput over a bare veth pair", nil)
	floor, err := lab.vethFloor(c)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "  veth pair (two bare namespaces):      %6.2f Gbit/s\n", floor)

	p.phase("throughput to the pod IP", nil)
	direct, err := throughput(client, lab.sink, hostPort(lab.server.ip, sinkPort), c.Streams, c.Duration)
	if err != nil {
		return err
	}
	dn, dd := aggregate(direct)
	fmt.Fprintf(out, "  pod → pod IP, across nodes:           %6.2f Gbit/s\n", gbitPerSec(dn, dd))

	p.phase("throughput through the ClusterIP", nil)
	via, err := throughput(client, lab.sink, hostPort(lab.clusterIP, serviceSinkPort), c.Streams, c.Duration)
	if err != nil {
		return err
	}
	vn, vd := aggregate(via)
	fmt.Fprintf(out, "  pod → ClusterIP → pod, across nodes:  %6.2f Gbit/s (%.0f%% of the pod IP figure); %s\n",
		gbitPerSec(vn, vd), 100*gbitPerSec(vn, vd)/max(gbitPerSec(dn, dd), 1e-9), lab.sources(via))

	targets := []string{hostPort(lab.server.ip, echoPort), hostPort(lab.clusterIP, serviceEchoPort)}
	for _, mode := range []rrMode{keptAlive, newConnPerRequest} {
		p.phase("request/response, "+mode.String(), nil)
		rtts, err := requestResponse(client, targets, mode, c.Latency, 200_000)
		if err != nil {
			return err
		}
		d, v := summarize(rtts[0]), summarize(rtts[1])
		fmt.Fprintf(out, "latency, %s: %d-byte request/response, one at a time, alternating pod IP and ClusterIP, %s after %d warm-up rounds\n",
			mode, requestSize, c.Latency, rrWarmup)
		fmt.Fprintf(out, "  pod IP    %s: %s\n", targets[0], d)
		fmt.Fprintf(out, "  ClusterIP %s: %s\n", targets[1], v)
		fmt.Fprintf(out, "  added by the Service: p50 %s, p99 %s\n", us(v.P50-d.P50), us(v.P99-d.P99))
	}
	return nil
}

// sources says which source addresses the server saw: the client pod's
// when nothing masqueraded the traffic.
func (lab *trafficLab) sources(flows []flowResult) string {
	seen := map[string]bool{}
	var list []string
	for _, f := range flows {
		host, _, _ := net.SplitHostPort(f.From)
		if !seen[host] {
			seen[host] = true
			list = append(list, host)
		}
	}
	if len(list) == 1 && list[0] == lab.client.ip {
		return "the server saw the client pod's address " + list[0]
	}
	return "the server saw sources " + strings.Join(list, ", ") + " (client pod " + lab.client.ip + ")"
}

// vethFloor sends the same bulk TCP over a veth pair between two
// namespaces the bench made.
func (lab *trafficLab) vethFloor(c TrafficConfig) (float64, error) {
	v, err := newVethPair()
	if err != nil {
		return 0, err
	}
	defer v.close()
	l, err := nsEndpoint{v.b}.listen(net.JoinHostPort(vethB, strconv.Itoa(sinkPort)))
	if err != nil {
		return 0, fmt.Errorf("veth pair sink: %w", err)
	}
	defer l.Close()
	flows, err := throughput(nsEndpoint{v.a}, startSink(l), net.JoinHostPort(vethB, strconv.Itoa(sinkPort)), c.Streams, c.Duration)
	if err != nil {
		return 0, err
	}
	n, d := aggregate(flows)
	return gbitPerSec(n, d), nil
}
