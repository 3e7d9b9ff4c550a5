// Package horizontalpodautoscaler defines the horizontalpodautoscalers
// resource (`hpa`, in `all`, with /status) as kube-apiserver 1.36 serves
// it: stored and handled as autoscaling/v2 (the preferred version), also
// served as autoscaling/v1 through upstream's conversion, which keeps what
// v1 cannot say (other metrics, behavior, conditions, metric statuses) in
// the `autoscaling.alpha.kubernetes.io/*` annotations so that v1 and v2
// round-trip. Upstream's v1 and v2 defaults, validation (minReplicas'
// bound with HPAScaleToZero off, the scale target and object metric
// apiVersion allowances of updates) and kube-apiserver's columns
// (REFERENCE, TARGETS, MINPODS, MAXPODS, REPLICAS, AGE).
//
// No horizontal-pod-autoscaler controller: nothing reads metrics or scales
// the target (as kube-apiserver without kube-controller-manager); status
// is what clients write.
package horizontalpodautoscaler
