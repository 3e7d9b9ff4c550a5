package ipaddress

import (
	"context"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the ipaddresses resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: networkingv1.SchemeGroupVersion, Kind: "IPAddress",
		Resource: "ipaddresses", Singular: "ipaddress", ShortNames: []string{"ip"},
		NameValidation: ValidateName,
		New:            func() runtime.Object { return &networkingv1.IPAddress{} },
		NewList:        func() runtime.Object { return &networkingv1.IPAddressList{} },
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return validateParentRef(obj.(*networkingv1.IPAddress).Spec.ParentRef)
		},
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			ip := obj.(*networkingv1.IPAddress)
			return append(validateParentRef(ip.Spec.ParentRef), validateUpdate(ip, old.(*networkingv1.IPAddress))...)
		},
		// A random suffix cannot make an IP: generateName is the name as is.
		KeepGenerateName: true,
		Columns: []metav1.TableColumnDefinition{
			resource.Column("ParentRef", "string", 0, "ParentRef references the resource that an IPAddress is attached to."),
		},
		Row: func(obj runtime.Object) []interface{} {
			ref := obj.(*networkingv1.IPAddress).Spec.ParentRef
			if ref == nil {
				return []interface{}{"<none>"}
			}
			gr := ref.Resource
			if ref.Group != "" {
				gr += "." + ref.Group
			}
			return []interface{}{gr + "/" + ref.Namespace + "/" + ref.Name}
		},
	}
}

// ValidateName is upstream's ValidateIPAddressName: the name is an IP
// address in canonical form (apimachinery's IsValidIP); any address,
// link-local and broadcast ones included, as upstream's conformance test
// creates them.
func ValidateName(name string, _ bool) []string {
	var out []string
	for _, e := range utilvalidation.IsValidIP(&field.Path{}, name) {
		out = append(out, e.Detail)
	}
	return out
}
