// Package informerutil holds what svcplane's informers share: the
// transform that drops metadata.managedFields before an object enters a
// cache, as kube-controller-manager, kube-scheduler and kube-proxy do for
// theirs (managedFields are often the largest part of an object and no
// controller reads them), and the controller manager's transform, which
// also drops the pod fields none of svcplane's controllers reads
// (TrimPodForControllers); and ShareSiblings, which makes the pods of one
// controller or namespace share the memory of what they hold in common
// (objshare).
package informerutil
