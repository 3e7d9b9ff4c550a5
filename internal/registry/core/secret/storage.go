package secret

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the secrets resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: corev1.SchemeGroupVersion, Kind: "Secret",
		Resource: "secrets", Singular: "secret", Namespaced: true,
		New:     func() runtime.Object { return &corev1.Secret{} },
		NewList: func() runtime.Object { return &corev1.SecretList{} },
		Default: func(obj runtime.Object) {
			if s := obj.(*corev1.Secret); s.Type == "" {
				s.Type = corev1.SecretTypeOpaque
			}
		},
		PrepareForCreate: func(ctx context.Context, obj runtime.Object) { mergeStringData(obj.(*corev1.Secret)) },
		PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) { mergeStringData(obj.(*corev1.Secret)) },
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return validate(obj.(*corev1.Secret))
		},
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			return validateUpdate(obj.(*corev1.Secret), old.(*corev1.Secret))
		},
		FieldLabelNames: []string{"type"},
		FieldLabels: func(obj runtime.Object) fields.Set {
			return fields.Set{"type": string(obj.(*corev1.Secret).Type)}
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Type", "string", 0, "The type of the secret"),
			resource.Column("Data", "string", 0, "The number of entries in Data"),
			resource.AgeColumn,
		},
		Row: func(obj runtime.Object) []interface{} {
			s := obj.(*corev1.Secret)
			return []interface{}{string(s.Type), int64(len(s.Data)), resource.AgeOf(obj)}
		},
	}
}

// mergeStringData folds the write-only stringData into data, as upstream's
// conversion does.
func mergeStringData(s *corev1.Secret) {
	if len(s.StringData) == 0 {
		return
	}
	if s.Data == nil {
		s.Data = map[string][]byte{}
	}
	for k, v := range s.StringData {
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
}
