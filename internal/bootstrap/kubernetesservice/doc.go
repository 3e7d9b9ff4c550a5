// Package kubernetesservice keeps the `kubernetes` Service in default
// (ClusterIP = first address of the primary service range, port https 443
// → the secure port, labels component=apiserver and provider=kubernetes, no
// selector) and its endpoints through an endpoint reconciler. It re-creates
// a deleted Service at once (it watches it) and within the reconcile
// interval at the latest; with the lease reconciler it rewrites the
// endpoints as soon as a lease appears or expires. On start it first removes
// this server's stale endpoint; Stop (a pre-shutdown hook) stops
// reconciling and removes this server's address.
package kubernetesservice
