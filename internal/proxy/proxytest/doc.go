// Package proxytest is the backend-neutral test kit of the proxy: the
// shared scenarios, testdata/scenarios/*.txtar (the Node, Services and
// EndpointSlices in as Kubernetes YAML, expected packet fates out; see
// ParseScenario), that every backend runs through its own packet tracer and
// compares with its own golden ruleset (Golden, rewritten by -update), and
// the tracers themselves: NFTTracer interprets knftables.Fake's ruleset the
// way the kernel walks it (hooks by priority, verdict maps, numgen, DNAT,
// masquerade marks, affinity sets), IPTTracer iptables-save text (chains,
// statistic, recent, ipsets), IPVSTracer the IPVS state behind the iptables
// rules. RunChecks compares a tracer's fates with a scenario's checks; random
// spreads are enumerated (enumerate) so every reachable endpoint is listed.
// The network-namespace lab of the kernel tests is the netlab subpackage;
// the benchmarks' synthetic cluster is the synthetic subpackage (which
// `svcplane bench` links; this package only tests do).
package proxytest
