package reviews

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"
)

// admit runs admission's validation of a create on a copy of the review;
// each kind calls it after its own checks, as upstream's do.
type admit func(ctx context.Context) error

// createOnly is what every review storage shares: a create that answers,
// nothing stored, no other verb.
type createOnly struct {
	newObj     func() runtime.Object
	singular   string
	namespaced bool
	answer     func(ctx context.Context, obj runtime.Object, admit admit) (runtime.Object, error)
}

var (
	_ rest.Creater              = &createOnly{}
	_ rest.Scoper               = &createOnly{}
	_ rest.SingularNameProvider = &createOnly{}
)

func (c *createOnly) New() runtime.Object     { return c.newObj() }
func (c *createOnly) Destroy()                {}
func (c *createOnly) NamespaceScoped() bool   { return c.namespaced }
func (c *createOnly) GetSingularName() string { return c.singular }

// Create answers the review.
func (c *createOnly) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, _ *metav1.CreateOptions) (runtime.Object, error) {
	return c.answer(ctx, obj, func(ctx context.Context) error {
		if createValidation == nil {
			return nil
		}
		return createValidation(ctx, obj.DeepCopyObject())
	})
}
