// Package nodeipam assigns each Node its pod CIDR(s) (spec.podCIDR and
// spec.podCIDRs, one per family of --cluster-cidr) carved from
// --cluster-cidr with --node-cidr-mask-size, as kube-controller-manager's
// range allocator does. The map of used subnets is rebuilt from the Nodes
// when the controller starts leading. As upstream's range allocator, a
// deleted Node's subnets are released at once, but subnets are handed out
// next-fit (the search starts after the last one given), so a new Node
// does not get a deleted one's subnet until the range has been gone round;
// a Node that comes with pod CIDRs has them occupied.
package nodeipam
