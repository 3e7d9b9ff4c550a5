package pod

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/filters"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// ensureAuthorizedForVerb asks the authorizer again with verb when the
// request was authorized for another one: a WebSocket upgrade is a GET,
// but exec, attach and port-forward need create
// (AuthorizePodWebsocketUpgradeCreatePermission, on in 1.36).
func ensureAuthorizedForVerb(ctx context.Context, a authorizer.Authorizer, verb string) error {
	info, ok := genericapirequest.RequestInfoFrom(ctx)
	if !ok {
		return apierrors.NewInternalError(errors.New("no request info in context"))
	}
	if info.Verb == verb {
		return nil
	}
	if a == nil {
		return apierrors.NewInternalError(errors.New("no authorizer available"))
	}
	attrs, err := filters.GetAuthorizerAttributes(ctx)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("error building authorizer attributes: %w", err))
	}
	decision, reason, err := a.Authorize(ctx, overrideVerb{Attributes: attrs, verb: verb})
	if err != nil {
		return err
	}
	if decision != authorizer.DecisionAllow {
		return apierrors.NewForbidden(schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}, info.Name, errors.New(reason))
	}
	return nil
}

type overrideVerb struct {
	authorizer.Attributes
	verb string
}

func (o overrideVerb) GetVerb() string { return o.verb }
