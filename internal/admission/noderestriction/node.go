package noderestriction

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apiserver/pkg/admission"
)

// admitNode: a node creates and updates only its own Node, sets no
// configSource, changes no taints nor owner references, and sets or
// changes no restricted label.
func admitNode(nodeName string, a admission.Attributes) error {
	if a.GetName() != nodeName {
		return admission.NewForbidden(a, fmt.Errorf("node %q is not allowed to modify node %q", nodeName, a.GetName()))
	}
	switch a.GetOperation() {
	case admission.Create:
		n, ok := a.GetObject().(*corev1.Node)
		if !ok {
			return admission.NewForbidden(a, fmt.Errorf("unexpected type %T", a.GetObject()))
		}
		if n.Spec.ConfigSource != nil {
			return admission.NewForbidden(a, fmt.Errorf("node %q is not allowed to create pods with a non-nil configSource", nodeName))
		}
		if forbidden := forbiddenLabels(modifiedLabels(n.Labels, nil)); len(forbidden) > 0 {
			return admission.NewForbidden(a, fmt.Errorf("node %q is not allowed to set the following labels: %s", nodeName, strings.Join(forbidden, ", ")))
		}
	case admission.Update:
		n, ok := a.GetObject().(*corev1.Node)
		if !ok {
			return admission.NewForbidden(a, fmt.Errorf("unexpected type %T", a.GetObject()))
		}
		old, ok := a.GetOldObject().(*corev1.Node)
		if !ok {
			return admission.NewForbidden(a, fmt.Errorf("unexpected type %T", a.GetObject()))
		}
		if n.Spec.ConfigSource != nil && !apiequality.Semantic.DeepEqual(n.Spec.ConfigSource, old.Spec.ConfigSource) {
			return admission.NewForbidden(a, fmt.Errorf("node %q is not allowed to update configSource to a new non-nil configSource", nodeName))
		}
		if !apiequality.Semantic.DeepEqual(n.Spec.Taints, old.Spec.Taints) {
			return admission.NewForbidden(a, fmt.Errorf("node %q is not allowed to modify taints", nodeName))
		}
		if !apiequality.Semantic.DeepEqual(n.OwnerReferences, old.OwnerReferences) {
			return admission.NewForbidden(a, fmt.Errorf("node %q is not allowed to modify ownerReferences", nodeName))
		}
		if forbidden := forbiddenLabels(modifiedLabels(n.Labels, old.Labels)); len(forbidden) > 0 {
			return admission.NewForbidden(a, fmt.Errorf("is not allowed to modify labels: %s", strings.Join(forbidden, ", ")))
		}
	}
	return nil
}

// modifiedLabels are the keys set in one map and not with the same value
// in the other.
func modifiedLabels(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok || v != w {
			out = append(out, k)
		}
	}
	for k, v := range b {
		if w, ok := a[k]; !ok || v != w {
			out = append(out, k)
		}
	}
	return out
}

// forbiddenLabels returns, sorted and each once, the keys a node may not
// set: node-restriction.kubernetes.io/ ones, and the kubernetes.io and
// k8s.io ones that are not the kubelet's own.
func forbiddenLabels(keys []string) []string {
	var out []string
	for _, k := range keys {
		ns := labelNamespace(k)
		if ns == corev1.LabelNamespaceNodeRestriction || strings.HasSuffix(ns, "."+corev1.LabelNamespaceNodeRestriction) ||
			kubernetesLabel(ns) && !kubeletLabel(k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func labelNamespace(key string) string {
	if ns, _, ok := strings.Cut(key, "/"); ok {
		return ns
	}
	return ""
}

func kubernetesLabel(ns string) bool {
	return ns == "kubernetes.io" || strings.HasSuffix(ns, ".kubernetes.io") ||
		ns == "k8s.io" || strings.HasSuffix(ns, ".k8s.io")
}

// kubeletLabels are the kubernetes.io labels a kubelet sets itself
// (k8s.io/kubelet/pkg/apis).
var kubeletLabels = []string{
	corev1.LabelHostname, corev1.LabelTopologyZone, corev1.LabelTopologyRegion,
	corev1.LabelFailureDomainBetaZone, corev1.LabelFailureDomainBetaRegion,
	corev1.LabelInstanceType, corev1.LabelInstanceTypeStable,
	corev1.LabelOSStable, corev1.LabelArchStable,
	"beta.kubernetes.io/os", "beta.kubernetes.io/arch",
}

func kubeletLabel(key string) bool {
	if slices.Contains(kubeletLabels, key) {
		return true
	}
	ns := labelNamespace(key)
	for _, allowed := range []string{corev1.LabelNamespaceSuffixKubelet, corev1.LabelNamespaceSuffixNode} {
		if ns == allowed || strings.HasSuffix(ns, "."+allowed) {
			return true
		}
	}
	return false
}
