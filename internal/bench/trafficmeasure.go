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
	v, err := newVethPair()
	if err != nil {
		return err
	}
	defer v.close()
	vl, err := nsEndpoint{v.b}.listen(hostPort(vethB, sinkPort))
	if err != nil {
		return fmt.Errorf("veth pair sink: %w", err)
	}
	defer vl.Close()
	vethSink := startSink(vl)
	paths := []struct {
		name, short string
		from        nsEndpoint
		to          *sink
		addr        string
	}{
		{"veth pair (two bare namespaces)", "veth pair", nsEndpoint{v.a}, vethSink, hostPort(vethB, sinkPort)},
		{"pod → pod IP, across nodes", "pod IP", client, lab.directSink, hostPort(lab.server.ip, directSinkPort)},
		{"pod → ClusterIP → pod, across nodes", "ClusterIP", client, lab.sink, hostPort(lab.clusterIP, serviceSinkPort)},
	}
	const viaService = 2
	fmt.Fprintf(out, "throughput: %d stream(s) of bulk TCP (%d KiB writes) for %s per figure, %d round(s) of the three paths, each round starting one path later; Gbit/s the server received over the time it received\n",
		c.Streams, bulkWrite>>10, c.Duration, c.Rounds)
	rates, perCPU := make([][]float64, len(paths)), make([][]float64, len(paths))
	var viaFlows []flowResult
	for r := 0; r < c.Rounds; r++ {
		var parts []string
		for k := range paths {
			i := (r + k) % len(paths)
			path := paths[i]
			p.phase(fmt.Sprintf("throughput round %d: %s", r+1, path.name), nil)
			cpu0 := cpuTime()
			flows, err := throughput(path.from, path.to, path.addr, c.Streams, c.Duration)
			if err != nil {
				return fmt.Errorf("%s: %w", path.name, err)
			}
			cpu := cpuTime() - cpu0
			n, d := aggregate(flows)
			rates[i] = append(rates[i], gbitPerSec(n, d))
			perCPU[i] = append(perCPU[i], gbitPerSec(n, cpu))
			parts = append(parts, fmt.Sprintf("%s %.2f", path.short, gbitPerSec(n, d)))
			if i == viaService {
				viaFlows = flows
			}
		}
		fmt.Fprintf(out, "  round %d: %s Gbit/s\n", r+1, strings.Join(parts, ", "))
	}
	med := make([]float64, len(paths))
	for i, path := range paths {
		med[i] = median(rates[i])
		eff := median(perCPU[i])
		fmt.Fprintf(out, "  %-37s %6.2f Gbit/s median; %.2f Gbit per CPU-second of the bench process (%.2f cores busy)\n",
			path.name+":", med[i], eff, med[i]/max(eff, 1e-9))
	}
	fmt.Fprintln(out, "  (the bench process runs both TCP ends; the kernel forwards in their softirqs, charged to it unless ksoftirqd takes over)")
	fmt.Fprintf(out, "  ClusterIP / pod IP: %.0f%%; %s\n", 100*med[viaService]/max(med[1], 1e-9), lab.sources(viaFlows))

	targets := []string{hostPort(lab.server.ip, directEchoPort), hostPort(lab.clusterIP, serviceEchoPort)}
	for _, mode := range []rrMode{keptAlive, newConnPerRequest} {
		p.phase("request/response, "+mode.String(), nil)
		res, err := requestResponse(client, targets, mode, c.Latency, 200_000)
		if err != nil {
			return err
		}
		d, v := summarize(res[0].RTTs), summarize(res[1].RTTs)
		fmt.Fprintf(out, "latency, %s: %d-byte request/response, one at a time, alternating pod IP and ClusterIP, %s after %d warm-up rounds\n",
			mode, requestSize, c.Latency, rrWarmup)
		fmt.Fprintf(out, "  pod IP    %s: %s\n", targets[0], d)
		fmt.Fprintf(out, "  ClusterIP %s: %s\n", targets[1], v)
		fmt.Fprintf(out, "  added by the Service: p50 %s, p99 %s\n", us(v.P50-d.P50), us(v.P99-d.P99))
		for i, r := range res {
			if r.ConnectFailures > 0 {
				fmt.Fprintf(out, "  %s: %d new connection(s) got no SYN-ACK within 5s (not in the percentiles)\n", targets[i], r.ConnectFailures)
			}
		}
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
