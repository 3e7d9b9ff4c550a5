package namespace

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the namespaces resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: corev1.SchemeGroupVersion, Kind: "Namespace",
		Resource: "namespaces", Singular: "namespace", ShortNames: []string{"ns"},
		NameValidation: apivalidation.ValidateNamespaceName,
		New:            func() runtime.Object { return &corev1.Namespace{} },
		NewList:        func() runtime.Object { return &corev1.NamespaceList{} },
		Default:        func(obj runtime.Object) { Default(obj.(*corev1.Namespace)) },
		Status: &resource.StatusDefinition{
			// Upstream's ValidateNamespaceStatusUpdate (its path
			// status.Phase included).
			ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
				ns := obj.(*corev1.Namespace)
				p := field.NewPath("status", "Phase")
				switch {
				case ns.DeletionTimestamp.IsZero() && ns.Status.Phase != corev1.NamespaceActive:
					return field.ErrorList{field.Invalid(p, ns.Status.Phase, "may only be 'Active' if `deletionTimestamp` is empty")}
				case !ns.DeletionTimestamp.IsZero() && ns.Status.Phase != corev1.NamespaceTerminating:
					return field.ErrorList{field.Invalid(p, ns.Status.Phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")}
				}
				return nil
			},
		},
		PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
			ns := obj.(*corev1.Namespace)
			ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
			if !hasFinalizer(ns, corev1.FinalizerKubernetes) {
				ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
			}
		},
		PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
			// Only /finalize changes spec.finalizers.
			obj.(*corev1.Namespace).Spec.Finalizers = old.(*corev1.Namespace).Spec.Finalizers
		},
		// The label of a generated name is set once the name is known.
		Canonicalize: func(obj runtime.Object) { Default(obj.(*corev1.Namespace)) },
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return validateFinalizers(obj.(*corev1.Namespace))
		},

		FieldLabelNames: []string{"status.phase"},
		// Upstream's NamespaceToSelectableFields also sets "name" (kept for
		// backward compatibility, though the conversion refuses the label).
		FieldLabels: func(obj runtime.Object) fields.Set {
			ns := obj.(*corev1.Namespace)
			return fields.Set{"status.phase": string(ns.Status.Phase), "name": ns.Name}
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Status", "string", 0, "The status of the namespace"),
			resource.AgeColumn,
		},
		Row: func(obj runtime.Object) []interface{} {
			return []interface{}{string(obj.(*corev1.Namespace).Status.Phase), resource.AgeOf(obj)}
		},
	}
}

// Default sets the kubernetes.io/metadata.name label to the name and the
// phase to Active when unset, as upstream's SetDefaults_Namespace and
// SetDefaults_NamespaceStatus do.
func Default(ns *corev1.Namespace) {
	if ns.Status.Phase == "" {
		ns.Status.Phase = corev1.NamespaceActive
	}
	if ns.Name == "" {
		return
	}
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[corev1.LabelMetadataName] = ns.Name
}

func hasFinalizer(ns *corev1.Namespace, f corev1.FinalizerName) bool {
	for _, x := range ns.Spec.Finalizers {
		if x == f {
			return true
		}
	}
	return false
}

func validateFinalizers(ns *corev1.Namespace) field.ErrorList {
	var errs field.ErrorList
	// Upstream reports every spec finalizer at spec.finalizers (no index).
	p := field.NewPath("spec", "finalizers")
	for _, f := range ns.Spec.Finalizers {
		errs = append(errs, apivalidation.ValidateFinalizerName(string(f), p)...)
		errs = append(errs, resource.ValidateKubeFinalizerName(string(f), p)...)
	}
	return errs
}
