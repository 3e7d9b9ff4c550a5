// Package poddisruptionbudget defines the policy/v1 poddisruptionbudgets
// resource with /status: upstream 1.36's validation (minAvailable or
// maxUnavailable, the selector, unhealthyPodEvictionPolicy; status counts
// and conditions), the v1 decoding that strips the v1beta1 empty-selector
// label, generation, and kube-apiserver's columns. No disruption
// controller: status is what clients write (as kube-apiserver without
// kube-controller-manager).
package poddisruptionbudget
