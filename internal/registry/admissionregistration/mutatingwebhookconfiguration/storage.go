package mutatingwebhookconfiguration

import (
	"context"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/admissionregistration/admregutil"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the mutatingwebhookconfigurations resource.
func Definition() *resource.Definition {
	return admregutil.Complete(&resource.Definition{
		Kind: "MutatingWebhookConfiguration", Resource: "mutatingwebhookconfigurations", Singular: "mutatingwebhookconfiguration",
		New:     func() runtime.Object { return &v1.MutatingWebhookConfiguration{} },
		NewList: func() runtime.Object { return &v1.MutatingWebhookConfigurationList{} },
		Default: func(obj runtime.Object) {
			admregutil.DefaultMutatingWebhookConfiguration(obj.(*v1.MutatingWebhookConfiguration))
		},
		Validate: func(_ context.Context, obj runtime.Object) field.ErrorList {
			return admregutil.ValidateMutatingWebhookConfiguration(obj.(*v1.MutatingWebhookConfiguration))
		},
		ValidateUpdate: func(_ context.Context, obj, old runtime.Object) field.ErrorList {
			return admregutil.ValidateMutatingWebhookConfigurationUpdate(obj.(*v1.MutatingWebhookConfiguration), old.(*v1.MutatingWebhookConfiguration))
		},
		Columns: admregutil.WebhooksColumns,
		Row: func(obj runtime.Object) []interface{} {
			return []interface{}{int64(len(obj.(*v1.MutatingWebhookConfiguration).Webhooks)), resource.AgeOf(obj)}
		},
	})
}
