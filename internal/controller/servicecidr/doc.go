// Package servicecidr is the ServiceCIDR controller: every ServiceCIDR gets
// the networking.k8s.io/service-cidr-finalizer and a Ready condition; a
// deleted ServiceCIDR keeps its finalizer (Ready=False, reason Terminating)
// while any IPAddress inside it is not covered by another ServiceCIDR, so
// no allocated ClusterIP is ever left outside every range, and then until
// DeletionGracePeriod (10 s, upstream's) after its deletion, for the
// allocators and its own informers to catch up. Shape: informers
// → rate-limited work queue keyed by name → sync.
package servicecidr
