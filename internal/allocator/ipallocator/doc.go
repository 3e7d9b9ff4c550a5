// Package ipallocator allocates Service ClusterIPs. Two modes share the
// Range arithmetic and the band strategy:
//
//   - IPAddress (default): every allocated IP is a networking.k8s.io/v1
//     IPAddress object named after it, created in etcd through the in-process
//     registry store. etcd's create-if-absent decides ownership, so servers
//     sharing one etcd never hand out the same IP; no lock is held across
//     the write. A cache of taken IPs (fed by an informer and by our own
//     writes) steers random picks away from collisions. Ranges come from
//     the ServiceCIDR objects.
//   - bitmap (--service-ip-allocator=bitmap): the allocation map of one
//     range is a RangeAllocation snapshot at /registry/ranges/serviceips,
//     changed by compare-and-swap.
//
// Errors carry kube-apiserver's wording.
package ipallocator
