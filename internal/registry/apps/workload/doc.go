// Package workload holds the validation and printing that the apps/v1
// workload kinds (deployments, replicasets) share.
package workload
