// Package informerutil holds what svcplane's informers share: the
// transform that drops metadata.managedFields before an object enters a
// cache, as kube-controller-manager, kube-scheduler and kube-proxy do for
// theirs (managedFields are often the largest part of an object and no
// controller reads them).
package informerutil
