// Package nodeipam assigns each Node its pod CIDR(s) (spec.podCIDR and
// spec.podCIDRs, one per family of --cluster-cidr) carved from
// --cluster-cidr with --node-cidr-mask-size, as kube-controller-manager's
// range allocator does. The map of used subnets is rebuilt from the Nodes
// when the controller starts leading; a deleted Node's subnets are reused.
package nodeipam
