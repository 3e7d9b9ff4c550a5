package aggregator

import "k8s.io/apimachinery/pkg/runtime/schema"

// Priority orders an APIService's group among groups (Group, higher
// first) and its version within the group (Version, higher first).
type Priority struct {
	Group   int32
	Version int32
}

// priority is one row of the table below.
type priority struct {
	group, version string
	groupMin, ver  int32
}

// kubeAPIServerPriorities are kube-apiserver 1.36's APIService priorities
// (pkg/controlplane/apiserver DefaultGenericAPIServicePriorities merged
// with cmd/kube-apiserver/app's apiVersionPriorities). A group version
// the core serves but this table lacks gets no APIService, as upstream:
// so a new group must be added here to be listed in /apis.
// test/drift compares the generic part with upstream's function.
var kubeAPIServerPriorities = []priority{
	{"", "v1", 18000, 1},
	{"apps", "v1", 17800, 15},
	{"events.k8s.io", "v1", 17750, 15},
	{"events.k8s.io", "v1beta1", 17750, 5},
	{"authentication.k8s.io", "v1", 17700, 15},
	{"authentication.k8s.io", "v1beta1", 17700, 9},
	{"authentication.k8s.io", "v1alpha1", 17700, 1},
	{"authorization.k8s.io", "v1", 17600, 15},
	{"autoscaling", "v1", 17500, 15},
	{"autoscaling", "v2", 17500, 30},
	{"autoscaling", "v2beta1", 17500, 9},
	{"autoscaling", "v2beta2", 17500, 1},
	{"batch", "v1", 17400, 15},
	{"batch", "v1beta1", 17400, 9},
	{"batch", "v2alpha1", 17400, 9},
	{"certificates.k8s.io", "v1", 17300, 15},
	{"certificates.k8s.io", "v1beta1", 17300, 9},
	{"certificates.k8s.io", "v1alpha1", 17300, 1},
	{"networking.k8s.io", "v1", 17200, 15},
	{"networking.k8s.io", "v1beta1", 17200, 9},
	{"policy", "v1", 17100, 15},
	{"policy", "v1beta1", 17100, 9},
	{"rbac.authorization.k8s.io", "v1", 17000, 15},
	{"storage.k8s.io", "v1", 16800, 15},
	{"storage.k8s.io", "v1beta1", 16800, 9},
	{"storage.k8s.io", "v1alpha1", 16800, 1},
	{"apiextensions.k8s.io", "v1", 16700, 15},
	{"admissionregistration.k8s.io", "v1", 16700, 15},
	{"admissionregistration.k8s.io", "v1beta1", 16700, 12},
	{"admissionregistration.k8s.io", "v1alpha1", 16700, 9},
	{"scheduling.k8s.io", "v1", 16600, 15},
	{"scheduling.k8s.io", "v1alpha2", 16600, 2},
	{"coordination.k8s.io", "v1", 16500, 15},
	{"coordination.k8s.io", "v1beta1", 16500, 13},
	{"coordination.k8s.io", "v1alpha2", 16500, 12},
	{"node.k8s.io", "v1", 16300, 15},
	{"node.k8s.io", "v1alpha1", 16300, 1},
	{"node.k8s.io", "v1beta1", 16300, 9},
	{"discovery.k8s.io", "v1", 16200, 15},
	{"discovery.k8s.io", "v1beta1", 16200, 12},
	{"resource.k8s.io", "v1", 16200, 21},
	{"resource.k8s.io", "v1beta2", 16200, 15},
	{"resource.k8s.io", "v1beta1", 16200, 9},
	{"resource.k8s.io", "v1alpha3", 16200, 1},
	{"flowcontrol.apiserver.k8s.io", "v1", 16100, 21},
	{"flowcontrol.apiserver.k8s.io", "v1beta3", 16100, 18},
	{"flowcontrol.apiserver.k8s.io", "v1beta2", 16100, 15},
	{"flowcontrol.apiserver.k8s.io", "v1beta1", 16100, 12},
	{"flowcontrol.apiserver.k8s.io", "v1alpha1", 16100, 9},
	{"internal.apiserver.k8s.io", "v1alpha1", 16000, 9},
	{"storagemigration.k8s.io", "v1beta1", 15800, 9},
}

// APIVersionPriorities returns kube-apiserver's APIService priorities by
// group version (a new map each call).
func APIVersionPriorities() map[schema.GroupVersion]Priority {
	out := make(map[schema.GroupVersion]Priority, len(kubeAPIServerPriorities))
	for _, p := range kubeAPIServerPriorities {
		out[schema.GroupVersion{Group: p.group, Version: p.version}] = Priority{Group: p.groupMin, Version: p.ver}
	}
	return out
}
