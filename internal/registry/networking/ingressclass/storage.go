package ingressclass

import (
	"context"
	"fmt"
	"slices"

	networkingv1 "k8s.io/api/networking/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"

	"github.com/svcplane/svcplane/internal/registry/networking/ingress"
)

const maxControllerLen = 250

var scopes = []string{networkingv1.IngressClassParametersReferenceScopeCluster, networkingv1.IngressClassParametersReferenceScopeNamespace}

// Definition returns the ingressclasses resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: networkingv1.SchemeGroupVersion, Kind: "IngressClass",
		Resource: "ingressclasses", Singular: "ingressclass",
		New:        func() runtime.Object { return &networkingv1.IngressClass{} },
		NewList:    func() runtime.Object { return &networkingv1.IngressClassList{} },
		Default:    func(obj runtime.Object) { Default(obj.(*networkingv1.IngressClass)) },
		Generation: true,
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return ValidateSpec(&obj.(*networkingv1.IngressClass).Spec, field.NewPath("spec"))
		},
		// Upstream's ValidateIngressClassUpdate: the metadata's transition,
		// controller immutable, then the new object as on create.
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			n, o := obj.(*networkingv1.IngressClass), old.(*networkingv1.IngressClass)
			errs := apivalidation.ValidateImmutableField(n.Spec.Controller, o.Spec.Controller, field.NewPath("spec", "controller"))
			return append(errs, ValidateSpec(&n.Spec, field.NewPath("spec"))...)
		},
		// The name column says "(default)" of the default class.
		OmitNameColumn: true,
		Columns: []metav1.TableColumnDefinition{
			{Name: "Name", Type: "string", Format: "name", Description: metav1.ObjectMeta{}.SwaggerDoc()["name"]},
			resource.Column("Controller", "string", 0, "Controller that is responsible for handling this class"),
			resource.Column("Parameters", "string", 0, "A reference to a resource with additional parameters"),
			resource.AgeColumn,
		},
		Row: func(obj runtime.Object) []interface{} {
			c := obj.(*networkingv1.IngressClass)
			params := "<none>"
			if p := c.Spec.Parameters; p != nil {
				params = p.Kind
				if p.APIGroup != nil {
					params = fmt.Sprintf("%s.%s", p.Kind, *p.APIGroup)
				}
				params = params + "/" + p.Name
			}
			name := c.Name
			if c.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true" {
				name += " (default)"
			}
			return []interface{}{name, c.Spec.Controller, params, resource.AgeOf(obj)}
		},
	}
}

// Default sets parameters.scope to Cluster when parameters are given
// without one (upstream's SetDefaults_IngressClass).
func Default(c *networkingv1.IngressClass) {
	if p := c.Spec.Parameters; p != nil && p.Scope == nil {
		s := networkingv1.IngressClassParametersReferenceScopeCluster
		p.Scope = &s
	}
}

// ValidateSpec checks a spec as upstream's validateIngressClassSpec.
func ValidateSpec(spec *networkingv1.IngressClassSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(spec.Controller) > maxControllerLen {
		errs = append(errs, field.TooLong(fld.Child("controller"), "", maxControllerLen))
	}
	errs = append(errs, validation.IsDomainPrefixedPath(fld.Child("controller"), spec.Controller)...)
	return append(errs, validateParameters(spec.Parameters, fld.Child("parameters"))...)
}

// validateParameters is upstream's validateIngressClassParametersReference.
func validateParameters(p *networkingv1.IngressClassParametersReference, fld *field.Path) field.ErrorList {
	if p == nil {
		return nil
	}
	var errs field.ErrorList
	if p.APIGroup != nil {
		for _, msg := range validation.IsDNS1123Subdomain(*p.APIGroup) {
			errs = append(errs, field.Invalid(fld.Child("apiGroup"), *p.APIGroup, msg))
		}
	}
	errs = append(errs, ingress.RequiredPathSegment(p.Kind, fld.Child("kind"))...)
	errs = append(errs, ingress.RequiredPathSegment(p.Name, fld.Child("name"))...)
	if p.Scope == nil {
		return append(errs, field.Required(fld.Child("scope"), ""))
	}
	switch *p.Scope {
	case networkingv1.IngressClassParametersReferenceScopeNamespace:
		if p.Namespace == nil {
			errs = append(errs, field.Required(fld.Child("namespace"), "`parameters.scope` is set to 'Namespace'"))
		} else {
			for _, msg := range apivalidation.ValidateNamespaceName(*p.Namespace, false) {
				errs = append(errs, field.Invalid(fld.Child("namespace"), *p.Namespace, msg))
			}
		}
	case networkingv1.IngressClassParametersReferenceScopeCluster:
		if p.Namespace != nil {
			errs = append(errs, field.Forbidden(fld.Child("namespace"), "`parameters.scope` is set to 'Cluster'"))
		}
	default:
		errs = append(errs, field.NotSupported(fld.Child("scope"), *p.Scope, slices.Clone(scopes)))
	}
	return errs
}
