// Package synthetic builds the benchmarks' cluster: N Services with M
// endpoints each as a proxy.Snapshot, and the one-endpoint-change and
// new-Service variants the sync benchmarks time. It imports nothing but
// internal/proxy, so `svcplane bench` links it without the test kit.
//
// Guarantees: the same arguments give the same snapshot; a variant never
// changes the snapshot it starts from.
package synthetic
