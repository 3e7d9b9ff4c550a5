// Package portallocator allocates Service NodePorts from
// --service-node-port-range, stored as the RangeAllocation at
// /registry/ranges/servicenodeports. All ports of one Service change in a
// single compare-and-swap, so a Service gets all its ports or none.
package portallocator
