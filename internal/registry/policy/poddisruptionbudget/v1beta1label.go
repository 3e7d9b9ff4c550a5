package poddisruptionbudget

import (
	policyv1 "k8s.io/api/policy/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// V1beta1Label is the label key policy/v1beta1 used for its empty
// selector semantics.
const V1beta1Label = "pdb.kubernetes.io/deprecated-v1beta1-empty-selector-match"

// matchNone is the selector a v1beta1 empty selector reads as in v1.
var matchNone = &metav1.LabelSelector{
	MatchExpressions: []metav1.LabelSelectorRequirement{{Key: V1beta1Label, Operator: metav1.LabelSelectorOpExists}},
}

// StripV1beta1Label drops requirements on V1beta1Label from a selector
// unless it is exactly the match-all or match-none selector, as upstream's
// policy/v1 conversion does on every decoded object.
func StripV1beta1Label(pdb *policyv1.PodDisruptionBudget) {
	s := pdb.Spec.Selector
	if s == nil || apiequality.Semantic.DeepEqual(s, &metav1.LabelSelector{}) || apiequality.Semantic.DeepEqual(s, matchNone) {
		return
	}
	kept := s.MatchExpressions[:0]
	for _, e := range s.MatchExpressions {
		if e.Key != V1beta1Label {
			kept = append(kept, e)
		}
	}
	s.MatchExpressions = kept
}
