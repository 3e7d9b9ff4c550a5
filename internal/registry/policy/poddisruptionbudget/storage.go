package poddisruptionbudget

import (
	"context"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the poddisruptionbudgets resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: policyv1.SchemeGroupVersion, Kind: "PodDisruptionBudget",
		Resource: "poddisruptionbudgets", Singular: "poddisruptionbudget", Namespaced: true,
		ShortNames: []string{"pdb"},
		New:        func() runtime.Object { return &policyv1.PodDisruptionBudget{} },
		NewList:    func() runtime.Object { return &policyv1.PodDisruptionBudgetList{} },
		Default:    func(obj runtime.Object) { StripV1beta1Label(obj.(*policyv1.PodDisruptionBudget)) },
		Generation: true,
		// Upstream's strategy checks no metadata of its own (the generic
		// registry's checks run).
		MetaValidation: resource.MetaNone,
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return ValidateSpec(&obj.(*policyv1.PodDisruptionBudget).Spec, false, field.NewPath("spec"))
		},
		// An update keeps accepting the invalid label values a stored
		// selector already has (upstream's
		// AllowInvalidLabelValueInSelector).
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			return ValidateSpec(&obj.(*policyv1.PodDisruptionBudget).Spec,
				hasInvalidLabelValue(old.(*policyv1.PodDisruptionBudget).Spec.Selector), field.NewPath("spec"))
		},
		Status: &resource.StatusDefinition{
			ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
				return ValidateStatus(&obj.(*policyv1.PodDisruptionBudget).Status, field.NewPath("status"))
			},
		},
		DisallowUnconditionalUpdate: true,
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Min Available", "string", 0, "The minimum number of pods that must be available."),
			resource.Column("Max Unavailable", "string", 0, "The maximum number of pods that may be unavailable."),
			resource.Column("Allowed Disruptions", "integer", 0, "Calculated number of pods that may be disrupted at this time."),
			resource.AgeColumn,
		},
		Row: func(obj runtime.Object) []interface{} {
			pdb := obj.(*policyv1.PodDisruptionBudget)
			minAvailable, maxUnavailable := "N/A", "N/A"
			if v := pdb.Spec.MinAvailable; v != nil {
				minAvailable = v.String()
			}
			if v := pdb.Spec.MaxUnavailable; v != nil {
				maxUnavailable = v.String()
			}
			return []interface{}{minAvailable, maxUnavailable, int64(pdb.Status.DisruptionsAllowed), resource.AgeOf(obj)}
		},
	}
}

// hasInvalidLabelValue reports whether a stored selector fails the strict
// label value rules.
func hasInvalidLabelValue(s *metav1.LabelSelector) bool {
	return s != nil && len(metav1validation.ValidateLabelSelector(s, metav1validation.LabelSelectorValidationOptions{}, nil)) > 0
}
