package serviceaccount

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the serviceaccounts resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: corev1.SchemeGroupVersion, Kind: "ServiceAccount",
		Resource: "serviceaccounts", Singular: "serviceaccount", Namespaced: true,
		ShortNames: []string{"sa"},
		New:        func() runtime.Object { return &corev1.ServiceAccount{} },
		NewList:    func() runtime.Object { return &corev1.ServiceAccountList{} },
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Secrets", "string", 0, "Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use."),
			resource.AgeColumn,
		},
		Row: func(obj runtime.Object) []interface{} {
			return []interface{}{int64(len(obj.(*corev1.ServiceAccount).Secrets)), resource.AgeOf(obj)}
		},
	}
}
