package validatingwebhookconfiguration

import (
	"context"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/admissionregistration/admregutil"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the validatingwebhookconfigurations resource.
func Definition() *resource.Definition {
	return admregutil.Complete(&resource.Definition{
		Kind: "ValidatingWebhookConfiguration", Resource: "validatingwebhookconfigurations", Singular: "validatingwebhookconfiguration",
		New:     func() runtime.Object { return &v1.ValidatingWebhookConfiguration{} },
		NewList: func() runtime.Object { return &v1.ValidatingWebhookConfigurationList{} },
		Default: func(obj runtime.Object) {
			admregutil.DefaultValidatingWebhookConfiguration(obj.(*v1.ValidatingWebhookConfiguration))
		},
		Validate: func(_ context.Context, obj runtime.Object) field.ErrorList {
			return admregutil.ValidateValidatingWebhookConfiguration(obj.(*v1.ValidatingWebhookConfiguration))
		},
		ValidateUpdate: func(_ context.Context, obj, old runtime.Object) field.ErrorList {
			return admregutil.ValidateValidatingWebhookConfigurationUpdate(obj.(*v1.ValidatingWebhookConfiguration), old.(*v1.ValidatingWebhookConfiguration))
		},
		Columns: admregutil.WebhooksColumns,
		Row: func(obj runtime.Object) []interface{} {
			return []interface{}{int64(len(obj.(*v1.ValidatingWebhookConfiguration).Webhooks)), resource.AgeOf(obj)}
		},
	})
}
