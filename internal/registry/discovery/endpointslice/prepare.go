package endpointslice

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// bumpGeneration: the generation goes up when anything but the metadata
// (labels aside) changes, as upstream's strategy does.
func bumpGeneration(s, old *discoveryv1.EndpointSlice) {
	a, b := *s, *old
	a.ObjectMeta, b.ObjectMeta = metav1.ObjectMeta{}, metav1.ObjectMeta{}
	if !apiequality.Semantic.DeepEqual(a, b) || !apiequality.Semantic.DeepEqual(s.Labels, old.Labels) {
		s.Generation = old.Generation + 1
	}
}

// dropTopology drops deprecatedTopology written through v1 (the only
// version served), keeping a node name it carried that the old slice
// also had, as upstream's dropTopologyOnV1.
func dropTopology(old, s *discoveryv1.EndpointSlice) {
	if old != nil && apiequality.Semantic.DeepEqual(old.Endpoints, s.Endpoints) {
		return
	}
	prev := map[string]bool{}
	if old != nil {
		for _, ep := range old.Endpoints {
			if n, ok := ep.DeprecatedTopology[corev1.LabelHostname]; ok {
				prev[n] = true
			}
		}
	}
	for i := range s.Endpoints {
		ep := &s.Endpoints[i]
		n, ok := ep.DeprecatedTopology[corev1.LabelHostname]
		if ep.NodeName == nil && ok && prev[n] && len(apivalidation.NameIsDNSSubdomain(n, false)) == 0 {
			ep.NodeName = &n
		}
		ep.DeprecatedTopology = nil
	}
}
