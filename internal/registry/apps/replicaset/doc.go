// Package replicaset defines the apps/v1 replicasets resource (with /status
// and /scale).
package replicaset
