// Package systempriorityclasses creates the system priority classes
// (system-node-critical, system-cluster-critical) as kube-apiserver's
// post-start hook "scheduling/bootstrap-system-priority-classes" does:
// each one missing is created, one that exists is left as it is.
package systempriorityclasses
