// Package pod defines the pods resource (with /status and /binding) and the
// pod-spec defaulting and validation that workload kinds share.
package pod
