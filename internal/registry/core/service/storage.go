package service

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the services resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: corev1.SchemeGroupVersion, Kind: "Service",
		Resource: "services", Singular: "service", Namespaced: true,
		ShortNames: []string{"svc"}, Categories: []string{"all"},
		EtcdPrefix: "services/specs",
		// RelaxedServiceNameValidation (on in 1.36): an RFC 1123 label.
		NameValidation: apivalidation.NameIsDNSLabel,
		New:            func() runtime.Object { return &corev1.Service{} },
		NewList:        func() runtime.Object { return &corev1.ServiceList{} },
		Default:        func(obj runtime.Object) { Default(obj.(*corev1.Service)) },
		Status: &resource.StatusDefinition{
			ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
				return ValidateStatusUpdate(obj.(*corev1.Service), old.(*corev1.Service))
			},
		},
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return Validate(obj.(*corev1.Service))
		},
		// Upstream's ValidateServiceUpdate: the metadata's transition, then
		// the spec (not the name again).
		UpdateMeta: resource.UpdateMetaTransition,
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			return ValidateUpdate(obj.(*corev1.Service), old.(*corev1.Service))
		},
		// Upstream: AddFieldLabelConversionsForService
		// (pkg/apis/core/v1/conversion.go) and SelectableFields
		// (pkg/registry/core/service/strategy.go).
		FieldLabelNames: []string{"spec.clusterIP", "spec.type"},
		FieldLabels: func(obj runtime.Object) fields.Set {
			svc := obj.(*corev1.Service)
			return fields.Set{"spec.clusterIP": svc.Spec.ClusterIP, "spec.type": string(svc.Spec.Type)}
		},
		Columns: columns,
		Row:     row,
	}
}
