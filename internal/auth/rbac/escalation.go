package rbac

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/component-helpers/auth/rbac/validation"
	"k8s.io/klog/v2"
)

// Escalation guards writes of the RBAC API: a user may create or change a
// role only with rules they hold themselves (or the "escalate" verb on it),
// and a binding only to a role whose rules they hold (or the "bind" verb
// on it). system:masters is exempt, as the loopback client is in it.
type Escalation struct {
	Authorizer authorizer.Authorizer
	Resolver   *Resolver
}

// fullAuthority is what setting an aggregationRule needs: it can gather
// anything.
var fullAuthority = []rbacv1.PolicyRule{
	{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"}},
	{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}},
}

// Check decides a create (old nil) or update of an RBAC object; the error
// is the API error to return (403 with upstream's message).
func (e *Escalation) Check(ctx context.Context, obj, old runtime.Object) error {
	if escalationAllowed(ctx) {
		return nil
	}
	if old != nil && onlyGCFieldsChange(obj, old) {
		return nil
	}
	switch o := obj.(type) {
	case *rbacv1.Role:
		if e.roleEscalationAuthorized(ctx) {
			return nil
		}
		return forbidden(ctx, "roles", o.Name, e.confirmNoEscalation(ctx, o.Rules))
	case *rbacv1.ClusterRole:
		if e.roleEscalationAuthorized(ctx) {
			return nil
		}
		if err := e.confirmNoEscalation(ctx, o.Rules); err != nil {
			return forbidden(ctx, "clusterroles", o.Name, err)
		}
		oldRole, _ := old.(*rbacv1.ClusterRole)
		if aggregates(o) || (oldRole != nil && aggregates(oldRole)) {
			if e.confirmNoEscalation(ctx, fullAuthority) != nil {
				return forbidden(ctx, "clusterroles", o.Name, errors.New("must have cluster-admin privileges to use the aggregationRule"))
			}
		}
		return nil
	case *rbacv1.RoleBinding:
		return e.checkBinding(ctx, "rolebindings", o.Name, o.RoleRef, o.Namespace)
	case *rbacv1.ClusterRoleBinding:
		return e.checkBinding(ctx, "clusterrolebindings", o.Name, o.RoleRef, "")
	}
	return fmt.Errorf("rbac escalation check: unexpected %T", obj)
}

func (e *Escalation) checkBinding(ctx context.Context, resource, name string, ref rbacv1.RoleRef, namespace string) error {
	if ref.Kind != "Role" && ref.Kind != "ClusterRole" {
		return nil // binds nothing; validation refuses the kind
	}
	if e.bindingAuthorized(ctx, ref, namespace) {
		return nil
	}
	rules, err := e.Resolver.RoleReferenceRules(ctx, ref, namespace)
	if err != nil {
		return err
	}
	return forbidden(ctx, resource, name, e.confirmNoEscalation(ctx, rules))
}

func forbidden(ctx context.Context, resource, name string, err error) error {
	if err == nil {
		return nil
	}
	return apierrors.NewForbidden(rbacv1.Resource(resource), name, err)
}

func aggregates(r *rbacv1.ClusterRole) bool {
	return r.AggregationRule != nil && len(r.AggregationRule.ClusterRoleSelectors) > 0
}

// escalationAllowed: system:masters may grant anything.
func escalationAllowed(ctx context.Context) bool {
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return false
	}
	for _, g := range u.GetGroups() {
		if g == user.SystemPrivilegedGroup {
			return true
		}
	}
	return false
}

// roleEscalationAuthorized asks the authorizer for "escalate" on the role
// the request writes.
func (e *Escalation) roleEscalationAuthorized(ctx context.Context) bool {
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return false
	}
	info, ok := genericapirequest.RequestInfoFrom(ctx)
	if !ok || !info.IsResourceRequest || info.APIGroup != rbacv1.GroupName || (info.Resource != "roles" && info.Resource != "clusterroles") {
		return false
	}
	return e.allowed(ctx, authorizer.AttributesRecord{
		User: u, Verb: "escalate", APIGroup: info.APIGroup, APIVersion: "*",
		Resource: info.Resource, Name: info.Name, Namespace: info.Namespace, ResourceRequest: true,
	})
}

// bindingAuthorized asks the authorizer for "bind" on the referenced role,
// in the binding's namespace ("" for a ClusterRoleBinding).
func (e *Escalation) bindingAuthorized(ctx context.Context, ref rbacv1.RoleRef, namespace string) bool {
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return false
	}
	attrs := authorizer.AttributesRecord{User: u, Verb: "bind", Namespace: namespace, ResourceRequest: true,
		APIGroup: ref.APIGroup, APIVersion: "*", Name: ref.Name}
	switch ref.Kind {
	case "ClusterRole":
		attrs.Resource = "clusterroles"
	case "Role":
		attrs.Resource = "roles"
	default:
		return false
	}
	return e.allowed(ctx, attrs)
}

func (e *Escalation) allowed(ctx context.Context, attrs authorizer.AttributesRecord) bool {
	if e.Authorizer == nil {
		return false
	}
	d, _, err := e.Authorizer.Authorize(ctx, attrs)
	if err != nil {
		klog.ErrorS(err, "Authorizing an RBAC escalation check", "user", attrs.User.GetName(), "verb", attrs.Verb, "resource", attrs.Resource, "name", attrs.Name)
	}
	return d == authorizer.DecisionAllow
}

// confirmNoEscalation fails unless the requesting user's rules (in the
// request's namespace) cover rules; the message lists what is missing as
// upstream's does.
func (e *Escalation) confirmNoEscalation(ctx context.Context, rules []rbacv1.PolicyRule) error {
	return ConfirmNoEscalation(ctx, e.Resolver, rules)
}

// ConfirmNoEscalation fails unless the rules of the context's user in the
// context's namespace cover rules.
func ConfirmNoEscalation(ctx context.Context, r *Resolver, rules []rbacv1.PolicyRule) error {
	u, ok := genericapirequest.UserFrom(ctx)
	if !ok {
		return errors.New("no user on context")
	}
	namespace, _ := genericapirequest.NamespaceFrom(ctx)
	var resolutionErrs []error
	owned, err := r.RulesFor(ctx, u, namespace)
	if err != nil {
		klog.V(1).Infof("non-fatal error getting local rules for %v: %v", u, err)
		resolutionErrs = append(resolutionErrs, err)
	}
	covers, missing := validation.Covers(owned, rules)
	if covers {
		return nil
	}
	lines := sets.New[string]()
	for _, m := range compactRules(missing) {
		lines.Insert(compactString(m))
	}
	list := sets.List(lines)
	sort.Strings(list)
	msg := fmt.Sprintf("user %q (groups=%q) is attempting to grant RBAC permissions not currently held:\n%s", u.GetName(), u.GetGroups(), strings.Join(list, "\n"))
	if len(resolutionErrs) > 0 {
		msg += fmt.Sprintf("; resolution errors: %v", resolutionErrs)
	}
	return errors.New(msg)
}

// onlyGCFieldsChange: the update touches only what the garbage collector
// writes (owner references, finalizers, managed fields), which needs no
// escalation check.
func onlyGCFieldsChange(obj, old runtime.Object) bool {
	if old == nil || reflect.ValueOf(old).IsNil() {
		return false
	}
	c := obj.DeepCopyObject()
	cm, err := meta.Accessor(c)
	if err != nil {
		return false
	}
	om, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	cm.SetOwnerReferences(om.GetOwnerReferences())
	cm.SetFinalizers(om.GetFinalizers())
	cm.SetSelfLink(om.GetSelfLink())
	cm.SetManagedFields(om.GetManagedFields())
	return equality.Semantic.DeepEqual(c, old)
}
