package apiserver

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/svcplane/svcplane/internal/auth/rbac"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// escalationGuarded is an RBAC resource's store whose creates and updates
// (patches and applies included) first pass the escalation check: you may
// grant only what you hold, as kube-apiserver's policy-based RBAC storage.
type escalationGuarded struct {
	*resource.REST
	esc *rbac.Escalation
}

func (g *escalationGuarded) Create(ctx context.Context, obj runtime.Object, createValidation rest.ValidateObjectFunc, options *metav1.CreateOptions) (runtime.Object, error) {
	if err := g.esc.Check(ctx, obj, nil); err != nil {
		return nil, err
	}
	return g.REST.Create(ctx, obj, createValidation, options)
}

func (g *escalationGuarded) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, options *metav1.UpdateOptions) (runtime.Object, bool, error) {
	checked := rest.WrapUpdatedObjectInfo(objInfo, func(ctx context.Context, obj, old runtime.Object) (runtime.Object, error) {
		if err := g.esc.Check(ctx, obj, old); err != nil {
			return nil, err
		}
		return obj, nil
	})
	return g.REST.Update(ctx, name, checked, createValidation, updateValidation, forceAllowCreate, options)
}
