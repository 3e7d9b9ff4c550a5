// Package job defines the batch/v1 jobs resource with /status as
// kube-apiserver serves it: upstream 1.36's defaults, the generated
// selector and its labels, validation of spec (counts, completion modes,
// indexed limits, pod failure and success policies, the pod template),
// of updates (immutable fields, the template while running) and of status
// updates (counters, conditions, times, indexes), the orphaning default
// of batch/v1 deletes, generation, the status.successful field selector
// and kube-apiserver's columns. No job controller: as kube-apiserver
// without kube-controller-manager.
package job
