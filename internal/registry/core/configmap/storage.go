package configmap

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the configmaps resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: corev1.SchemeGroupVersion, Kind: "ConfigMap",
		Resource: "configmaps", Singular: "configmap", Namespaced: true,
		ShortNames: []string{"cm"},
		New:        func() runtime.Object { return &corev1.ConfigMap{} },
		NewList:    func() runtime.Object { return &corev1.ConfigMapList{} },
		// Upstream's SetDefaults_ConfigMap.
		Default: func(obj runtime.Object) {
			if cm := obj.(*corev1.ConfigMap); cm.Data == nil {
				cm.Data = map[string]string{}
			}
		},
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return validate(obj.(*corev1.ConfigMap))
		},
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			return validateUpdate(obj.(*corev1.ConfigMap), old.(*corev1.ConfigMap))
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Data", "integer", 0, "Data contains the configuration data."),
			resource.AgeColumn,
		},
		Row: func(obj runtime.Object) []interface{} {
			cm := obj.(*corev1.ConfigMap)
			return []interface{}{int64(len(cm.Data) + len(cm.BinaryData)), resource.AgeOf(obj)}
		},
	}
}
