package admregutil

import (
	"context"
	"fmt"
	"strings"

	v1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/discovery"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// ParamAuthorizer is the check upstream's policy and binding strategies
// make once an object is otherwise valid: whoever writes a policy with a
// paramKind must be allowed to get every object of that kind; whoever
// writes a binding with a paramRef must be allowed to get (by name) or
// list (by selector) what it refers to, of its policy's paramKind. Members
// of system:masters are not asked. A refusal is a Forbidden error at
// spec.paramKind or spec.paramRef.
type ParamAuthorizer struct {
	Authorizer authorizer.Authorizer
	// Resolve maps a kind to its resource (discovery, as upstream).
	Resolve func(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error)
	// ParamKindOf returns the paramKind of the named validating (mutating
	// false) or mutating policy.
	ParamKindOf func(ctx context.Context, mutating bool, name string) (*v1.ParamKind, error)
}

// DiscoveryResolver resolves kinds to resources with discovery: the
// first resource of the group version of that kind that is not a
// subresource.
func DiscoveryResolver(d discovery.DiscoveryInterface) func(schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	return func(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
		gv := gvk.GroupVersion()
		list, err := d.ServerResourcesForGroupVersion(gv.String())
		if err != nil {
			return schema.GroupVersionResource{}, err
		}
		for _, r := range list.APIResources {
			if r.Kind != gvk.Kind || strings.Contains(r.Name, "/") ||
				(r.Group != "" && r.Group != gvk.Group) || (r.Version != "" && r.Version != gvk.Version) {
				continue
			}
			return gv.WithResource(r.Name), nil
		}
		return schema.GroupVersionResource{}, &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
	}
}

// Guard adds the check to the validation of the policy and binding
// definitions among defs.
func (a *ParamAuthorizer) Guard(defs []*resource.Definition) {
	for _, d := range defs {
		if d.GroupVersion != v1.SchemeGroupVersion {
			continue
		}
		switch d.Kind {
		case "ValidatingAdmissionPolicy", "MutatingAdmissionPolicy":
			a.guard(d, field.NewPath("spec", "paramKind"), a.policyCheck)
		case "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicyBinding":
			a.guard(d, field.NewPath("spec", "paramRef"), a.bindingCheck)
		}
	}
}

// check returns nil when allowed; old is nil on create.
type check func(ctx context.Context, obj, old runtime.Object) error

func (a *ParamAuthorizer) guard(d *resource.Definition, p *field.Path, c check) {
	validate, validateUpdate := d.Validate, d.ValidateUpdate
	d.Validate = func(ctx context.Context, obj runtime.Object) field.ErrorList {
		errs := validate(ctx, obj)
		if len(errs) == 0 {
			if err := c(ctx, obj, nil); err != nil {
				errs = append(errs, field.Forbidden(p, err.Error()))
			}
		}
		return errs
	}
	d.ValidateUpdate = func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
		var errs field.ErrorList
		if validateUpdate != nil {
			errs = validateUpdate(ctx, obj, old)
		} else {
			errs = validate(ctx, obj)
		}
		if len(errs) == 0 {
			if err := c(ctx, obj, old); err != nil {
				errs = append(errs, field.Forbidden(p, err.Error()))
			}
		}
		return errs
	}
}

func policyParamKind(obj runtime.Object) *v1.ParamKind {
	switch p := obj.(type) {
	case *v1.ValidatingAdmissionPolicy:
		return p.Spec.ParamKind
	case *v1.MutatingAdmissionPolicy:
		return p.Spec.ParamKind
	}
	return nil
}

// privileged: system:masters may refer to anything.
func privileged(u user.Info) bool {
	for _, g := range u.GetGroups() {
		if g == user.SystemPrivilegedGroup {
			return true
		}
	}
	return false
}

func (a *ParamAuthorizer) policyCheck(ctx context.Context, obj, old runtime.Object) error {
	pk := policyParamKind(obj)
	if pk == nil {
		return nil
	}
	if old != nil {
		if opk := policyParamKind(old); opk != nil && *opk == *pk {
			return nil
		}
	}
	u, ok := genericapirequest.UserFrom(ctx)
	if a.Authorizer == nil {
		return nil
	}
	if ok && privileged(u) {
		return nil
	}
	if !ok {
		return fmt.Errorf("cannot identify user to authorize read access to paramKind resources")
	}
	resource, group, version := "*", "*", "*"
	if gv, err := schema.ParseGroupVersion(pk.APIVersion); err == nil {
		group, version = gv.Group, gv.Version
		if gvr, err := a.Resolve(gv.WithKind(pk.Kind)); err == nil {
			resource = gvr.Resource
		}
	}
	d, _, err := a.Authorizer.Authorize(ctx, authorizer.AttributesRecord{User: u, Verb: "get", ResourceRequest: true,
		Name: "*", Namespace: "*", APIGroup: group, APIVersion: version, Resource: resource})
	if err != nil {
		return err
	}
	if d != authorizer.DecisionAllow {
		return fmt.Errorf(`user %v must have "get" permission on all objects of the referenced paramKind (kind=%s, apiVersion=%s)`, u, pk.Kind, pk.APIVersion)
	}
	return nil
}

// bindingSpec returns a binding's policy, paramRef and whether it binds a
// mutating policy.
func bindingSpec(obj runtime.Object) (string, *v1.ParamRef, bool) {
	switch b := obj.(type) {
	case *v1.ValidatingAdmissionPolicyBinding:
		return b.Spec.PolicyName, b.Spec.ParamRef, false
	case *v1.MutatingAdmissionPolicyBinding:
		return b.Spec.PolicyName, b.Spec.ParamRef, true
	}
	return "", nil, false
}

func (a *ParamAuthorizer) bindingCheck(ctx context.Context, obj, old runtime.Object) error {
	policy, ref, mutating := bindingSpec(obj)
	if ref == nil {
		return nil
	}
	if old != nil {
		if oldPolicy, oldRef, _ := bindingSpec(old); oldRef != nil && oldPolicy == policy && paramRefEqual(oldRef, ref) {
			return nil
		}
	}
	if a.Authorizer == nil {
		return nil
	}
	u, ok := genericapirequest.UserFrom(ctx)
	if ok && privileged(u) {
		return nil
	}
	if !ok {
		return fmt.Errorf("cannot identify user to authorize read access to paramRef object")
	}
	resource, group, version := "*", "*", "*"
	pk, policyErr := a.ParamKindOf(ctx, mutating, policy)
	var parseErr, resolveErr error
	if policyErr == nil && pk != nil {
		var gv schema.GroupVersion
		if gv, parseErr = schema.ParseGroupVersion(pk.APIVersion); parseErr == nil {
			group, version = gv.Group, gv.Version
			var gvr schema.GroupVersionResource
			if gvr, resolveErr = a.Resolve(gv.WithKind(pk.Kind)); resolveErr == nil {
				resource = gvr.Resource
			}
		}
	}
	verb := "get"
	if ref.Name == "" {
		verb = "list"
	}
	d, _, err := a.Authorizer.Authorize(ctx, authorizer.AttributesRecord{User: u, Verb: verb, ResourceRequest: true,
		Name: ref.Name, Namespace: ref.Namespace, APIGroup: group, APIVersion: version, Resource: resource})
	if err != nil {
		if mutating {
			return err
		}
		return fmt.Errorf(`failed to authorize request: %w`, err)
	}
	if d == authorizer.DecisionAllow {
		return nil
	}
	switch {
	case policyErr != nil:
		return fmt.Errorf(`unable to get policy %s to determine minimum required permissions and user %v does not have "%v" permission for all groups, versions and resources`, policy, u, verb)
	case parseErr != nil:
		return fmt.Errorf(`unable to parse paramKind %v to determine minimum required permissions and user %v does not have "%v" permission for all groups, versions and resources`, pk, u, verb)
	case resolveErr != nil:
		return fmt.Errorf(`unable to resolve paramKind %v to determine minimum required permissions and user %v does not have "%v" permission for all groups, versions and resources`, pk, u, verb)
	case mutating:
		// As upstream: verb and user change places in this message.
		return fmt.Errorf(`user %v does not have "%v" permission on the object referenced by paramRef`, verb, u)
	}
	return fmt.Errorf(`user %v does not have "%v" permission on the object referenced by paramRef`, u, verb)
}

// paramRefEqual compares two paramRefs as upstream's struct comparison
// does: the selector and parameterNotFoundAction by pointer, so that two
// decoded objects with either set never compare equal (and a valid
// binding, which has the action, is checked again on every update).
func paramRefEqual(a, b *v1.ParamRef) bool {
	return *a == *b
}
