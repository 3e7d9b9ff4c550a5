// Package deployment defines the apps/v1 deployments resource (with /status
// and /scale).
package deployment
