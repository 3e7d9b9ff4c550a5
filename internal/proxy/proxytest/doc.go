// Package proxytest is the backend-neutral test kit of the proxy: one
// shared scenario table (Services and EndpointSlices in, expected packet
// fates out) that every backend runs through its own packet tracer, and the
// tracer for the nftables backend, which interprets knftables.Fake's
// ruleset the way the kernel walks it (hooks by priority, verdict maps,
// numgen, DNAT, masquerade marks, affinity sets).
package proxytest
