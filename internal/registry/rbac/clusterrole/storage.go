package clusterrole

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/rbac/rbacutil"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the clusterroles resource.
func Definition() *resource.Definition {
	return rbacutil.Role(&resource.Definition{
		Kind: "ClusterRole", Resource: "clusterroles", Singular: "clusterrole",
		New:     func() runtime.Object { return &rbacv1.ClusterRole{} },
		NewList: func() runtime.Object { return &rbacv1.ClusterRoleList{} },
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return Validate(obj.(*rbacv1.ClusterRole), false)
		},
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			return Validate(obj.(*rbacv1.ClusterRole), hasInvalidLabelValue(old.(*rbacv1.ClusterRole)))
		},
	})
}

// Validate checks a ClusterRole beyond its object meta, as upstream's
// ValidateClusterRole; allowInvalidLabelValue tolerates bad label values in
// the aggregation selectors (updates of an object that had them).
func Validate(r *rbacv1.ClusterRole, allowInvalidLabelValue bool) field.ErrorList {
	errs := rbacutil.ValidateRules(r.Rules, false)
	if r.AggregationRule == nil {
		return errs
	}
	p := field.NewPath("aggregationRule", "clusterRoleSelectors")
	if len(r.AggregationRule.ClusterRoleSelectors) == 0 {
		errs = append(errs, field.Required(p, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
	}
	opts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: allowInvalidLabelValue}
	for i := range r.AggregationRule.ClusterRoleSelectors {
		sel := &r.AggregationRule.ClusterRoleSelectors[i]
		errs = append(errs, metav1validation.ValidateLabelSelector(sel, opts, p.Index(i))...)
		if _, err := metav1.LabelSelectorAsSelector(sel); err != nil {
			errs = append(errs, field.Invalid(p.Index(i), sel, "invalid label selector."))
		}
	}
	return errs
}

// hasInvalidLabelValue reports whether a stored ClusterRole's aggregation
// selectors fail the strict label selector check.
func hasInvalidLabelValue(r *rbacv1.ClusterRole) bool {
	if r.AggregationRule == nil {
		return false
	}
	for i := range r.AggregationRule.ClusterRoleSelectors {
		if len(metav1validation.ValidateLabelSelector(&r.AggregationRule.ClusterRoleSelectors[i],
			metav1validation.LabelSelectorValidationOptions{}, nil)) > 0 {
			return true
		}
	}
	return false
}
