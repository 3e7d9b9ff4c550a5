package ingress

import (
	"context"
	"fmt"
	"sort"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the ingresses resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: networkingv1.SchemeGroupVersion, Kind: "Ingress",
		Resource: "ingresses", Singular: "ingress", Namespaced: true, ShortNames: []string{"ing"},
		New:        func() runtime.Object { return &networkingv1.Ingress{} },
		NewList:    func() runtime.Object { return &networkingv1.IngressList{} },
		Generation: true,
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return ValidateCreate(obj.(*networkingv1.Ingress))
		},
		// Upstream's ValidateIngressUpdate: the metadata's transition, then
		// the new object with its metadata as on create.
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			ing, o := obj.(*networkingv1.Ingress), old.(*networkingv1.Ingress)
			return ValidateSpec(&ing.Spec, field.NewPath("spec"), optionsFor(o))
		},
		Warnings: func(ctx context.Context, obj, old runtime.Object) []string {
			if old != nil {
				return nil
			}
			ing := obj.(*networkingv1.Ingress)
			if _, ok := ing.Annotations[classAnnotation]; ok && ing.Spec.IngressClassName == nil {
				return []string{fmt.Sprintf("annotation %q is deprecated, please use 'spec.ingressClassName' instead", classAnnotation)}
			}
			return nil
		},
		Status: &resource.StatusDefinition{
			ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
				return ValidateLoadBalancerStatus(&obj.(*networkingv1.Ingress).Status.LoadBalancer,
					&old.(*networkingv1.Ingress).Status.LoadBalancer, field.NewPath("status", "loadBalancer"))
			},
			Warnings: func(ctx context.Context, obj, old runtime.Object) []string {
				var out []string
				fld := field.NewPath("status", "loadBalancer", "ingress")
				for i, ing := range obj.(*networkingv1.Ingress).Status.LoadBalancer.Ingress {
					if ing.IP != "" {
						out = append(out, validation.GetWarningsForIP(fld.Index(i), ing.IP)...)
					}
				}
				return out
			},
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Class", "string", 0, "The name of the IngressClass resource that should be used for additional configuration"),
			resource.Column("Hosts", "string", 0, "Hosts that incoming requests are matched against before the ingress rule"),
			resource.Column("Address", "string", 0, "Address is a list containing ingress points for the load-balancer"),
			resource.Column("Ports", "string", 0, "Ports of TLS configurations that open"),
			resource.AgeColumn,
		},
		Row: func(obj runtime.Object) []interface{} {
			ing := obj.(*networkingv1.Ingress)
			class := "<none>"
			if ing.Spec.IngressClassName != nil {
				class = *ing.Spec.IngressClassName
			}
			return []interface{}{class, hosts(ing), addresses(ing), ports(ing), resource.AgeOf(obj)}
		},
	}
}

// hosts is upstream's formatHosts: up to three hosts, then "+ N more...".
func hosts(ing *networkingv1.Ingress) string {
	var list []string
	max, more := 3, false
	for _, r := range ing.Spec.Rules {
		if len(list) == max {
			more = true
		}
		if !more && r.Host != "" {
			list = append(list, r.Host)
		}
	}
	if len(list) == 0 {
		return "*"
	}
	s := strings.Join(list, ",")
	if more {
		return fmt.Sprintf("%s + %d more...", s, len(ing.Spec.Rules)-max)
	}
	return s
}

// addresses is upstream's ingressLoadBalancerStatusStringer as the
// server prints it (wide: not cut): the IPs, else hostnames, sorted and
// unique.
func addresses(ing *networkingv1.Ingress) string {
	set := map[string]bool{}
	for _, i := range ing.Status.LoadBalancer.Ingress {
		if i.IP != "" {
			set[i.IP] = true
		} else if i.Hostname != "" {
			set[i.Hostname] = true
		}
	}
	list := make([]string, 0, len(set))
	for a := range set {
		list = append(list, a)
	}
	sort.Strings(list)
	return strings.Join(list, ",")
}

// ports is "80", or "80, 443" when TLS is configured.
func ports(ing *networkingv1.Ingress) string {
	if len(ing.Spec.TLS) != 0 {
		return "80, 443"
	}
	return "80"
}
