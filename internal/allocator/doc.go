// Package allocator holds the Service IP and port allocators: bitmap (pure
// allocation map with upstream's static/dynamic bands), rangestore (a bitmap
// kept as a RangeAllocation in etcd, updated by compare-and-swap),
// ipallocator (ClusterIPs: IPAddress objects or bitmap) and portallocator
// (NodePorts). No value is ever handed to two owners: every allocation is
// decided by an etcd write that fails if someone else got there first.
package allocator
