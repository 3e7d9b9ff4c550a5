// Package rangestore keeps an allocation bitmap in etcd as a core/v1
// RangeAllocation, the way kube-apiserver stores /registry/ranges/serviceips
// and /registry/ranges/servicenodeports. Every change is a compare-and-swap
// of the whole snapshot (GuaranteedUpdate), so servers sharing one etcd
// serialise through etcd and never hand out one value twice.
package rangestore
