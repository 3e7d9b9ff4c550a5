// Package priorityclass defines the scheduling.k8s.io/v1 priorityclasses
// resource: upstream 1.36's defaults (preemptionPolicy), validation (the
// reserved "system-" prefix, the highest user-definable value, immutable
// value and preemptionPolicy) and kube-apiserver's columns; and the two
// system priority classes kube-apiserver creates at start (System).
package priorityclass
