package priorityclass

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the priorityclasses resource.
func Definition() *resource.Definition {
	doc := schedulingv1.PriorityClass{}.SwaggerDoc()
	return &resource.Definition{
		GroupVersion: schedulingv1.SchemeGroupVersion, Kind: "PriorityClass",
		Resource: "priorityclasses", Singular: "priorityclass", ShortNames: []string{"pc"},
		New:     func() runtime.Object { return &schedulingv1.PriorityClass{} },
		NewList: func() runtime.Object { return &schedulingv1.PriorityClassList{} },
		Default: func(obj runtime.Object) { Default(obj.(*schedulingv1.PriorityClass)) },
		// Upstream's PrepareForCreate sets generation 1; updates keep it.
		Generation: true,
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return Validate(obj.(*schedulingv1.PriorityClass))
		},
		// Upstream's ValidatePriorityClassUpdate: the metadata's transition,
		// value and preemptionPolicy immutable; the new object is not
		// checked again.
		UpdateMeta: resource.UpdateMetaTransition,
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			return ValidateUpdate(obj.(*schedulingv1.PriorityClass), old.(*schedulingv1.PriorityClass))
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Value", "integer", 0, doc["value"]),
			resource.Column("Global-Default", "boolean", 0, doc["globalDefault"]),
			resource.AgeColumn,
			resource.Column("PreemptionPolicy", "string", 0, doc["preemptionPolicy"]),
		},
		Row: func(obj runtime.Object) []interface{} {
			pc := obj.(*schedulingv1.PriorityClass)
			policy := "<unset>"
			if pc.PreemptionPolicy != nil {
				policy = string(*pc.PreemptionPolicy)
			}
			return []interface{}{int64(pc.Value), pc.GlobalDefault, resource.AgeOf(obj), policy}
		},
	}
}

// Default sets preemptionPolicy to PreemptLowerPriority when unset
// (upstream's SetDefaults_PriorityClass).
func Default(pc *schedulingv1.PriorityClass) {
	if pc.PreemptionPolicy == nil {
		p := corev1.PreemptLowerPriority
		pc.PreemptionPolicy = &p
	}
}
