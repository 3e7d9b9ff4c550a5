package rbac

import (
	"context"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
)

// Source is where the resolver reads roles and bindings from: informer
// listers in the server, fixed lists in tests.
type Source interface {
	Role(namespace, name string) (*rbacv1.Role, error)
	ClusterRole(name string) (*rbacv1.ClusterRole, error)
	RoleBindings(namespace string) ([]*rbacv1.RoleBinding, error)
	ClusterRoleBindings() ([]*rbacv1.ClusterRoleBinding, error)
}

// FromListers is a Source over client-go listers (an informer factory's).
func FromListers(roles rbaclisters.RoleLister, clusterRoles rbaclisters.ClusterRoleLister, roleBindings rbaclisters.RoleBindingLister, clusterRoleBindings rbaclisters.ClusterRoleBindingLister) Source {
	return listers{roles, clusterRoles, roleBindings, clusterRoleBindings}
}

type listers struct {
	roles               rbaclisters.RoleLister
	clusterRoles        rbaclisters.ClusterRoleLister
	roleBindings        rbaclisters.RoleBindingLister
	clusterRoleBindings rbaclisters.ClusterRoleBindingLister
}

func (l listers) Role(namespace, name string) (*rbacv1.Role, error) {
	return l.roles.Roles(namespace).Get(name)
}

func (l listers) ClusterRole(name string) (*rbacv1.ClusterRole, error) {
	return l.clusterRoles.Get(name)
}

func (l listers) RoleBindings(namespace string) ([]*rbacv1.RoleBinding, error) {
	return l.roleBindings.RoleBindings(namespace).List(labels.Everything())
}

func (l listers) ClusterRoleBindings() ([]*rbacv1.ClusterRoleBinding, error) {
	return l.clusterRoleBindings.List(labels.Everything())
}

// Resolver finds the rules that apply to a user in a namespace.
type Resolver struct {
	src Source
}

// NewResolver returns a resolver over src.
func NewResolver(src Source) *Resolver { return &Resolver{src: src} }

// Visitor receives each rule that applies, with the binding that granted it,
// or an error met while resolving (rule nil). Returning false stops the walk.
type Visitor func(source fmt.Stringer, rule *rbacv1.PolicyRule, err error) bool

// VisitRulesFor walks the rules of every ClusterRoleBinding naming the
// user, then (namespace set) of every RoleBinding of that namespace naming
// it. A binding whose role cannot be read is reported to the visitor as an
// error and skipped: rules only add rights, so the others still count.
func (r *Resolver) VisitRulesFor(ctx context.Context, u user.Info, namespace string, visit Visitor) {
	crbs, err := r.src.ClusterRoleBindings()
	if err != nil {
		if !visit(nil, nil, err) {
			return
		}
	} else {
		for _, b := range crbs {
			i, ok := appliesTo(u, b.Subjects, "")
			if !ok {
				continue
			}
			rules, err := r.RoleReferenceRules(ctx, b.RoleRef, "")
			if err != nil {
				if !visit(nil, nil, err) {
					return
				}
				continue
			}
			src := clusterBindingSource{b, &b.Subjects[i]}
			for j := range rules {
				if !visit(src, &rules[j], nil) {
					return
				}
			}
		}
	}
	if namespace == "" {
		return
	}
	rbs, err := r.src.RoleBindings(namespace)
	if err != nil {
		visit(nil, nil, err)
		return
	}
	for _, b := range rbs {
		i, ok := appliesTo(u, b.Subjects, namespace)
		if !ok {
			continue
		}
		rules, err := r.RoleReferenceRules(ctx, b.RoleRef, namespace)
		if err != nil {
			if !visit(nil, nil, err) {
				return
			}
			continue
		}
		src := bindingSource{b, &b.Subjects[i]}
		for j := range rules {
			if !visit(src, &rules[j], nil) {
				return
			}
		}
	}
}

// RulesFor returns every rule that applies to the user in the namespace,
// and the resolution errors met (the rules are still all that could be
// read).
func (r *Resolver) RulesFor(ctx context.Context, u user.Info, namespace string) ([]rbacv1.PolicyRule, error) {
	var rules []rbacv1.PolicyRule
	var errs []error
	r.VisitRulesFor(ctx, u, namespace, func(_ fmt.Stringer, rule *rbacv1.PolicyRule, err error) bool {
		if rule != nil {
			rules = append(rules, *rule)
		}
		if err != nil {
			errs = append(errs, err)
		}
		return true
	})
	return rules, utilerrors.NewAggregate(errs)
}

// RoleReferenceRules returns the rules of a binding's role: a Role of the
// binding's namespace or a ClusterRole.
func (r *Resolver) RoleReferenceRules(ctx context.Context, ref rbacv1.RoleRef, bindingNamespace string) ([]rbacv1.PolicyRule, error) {
	switch ref.Kind {
	case "Role":
		role, err := r.src.Role(bindingNamespace, ref.Name)
		if err != nil {
			return nil, err
		}
		return role.Rules, nil
	case "ClusterRole":
		role, err := r.src.ClusterRole(ref.Name)
		if err != nil {
			return nil, err
		}
		return role.Rules, nil
	default:
		return nil, fmt.Errorf("unsupported role reference kind: %q", ref.Kind)
	}
}

// appliesTo returns the index of the first subject naming the user.
func appliesTo(u user.Info, subjects []rbacv1.Subject, namespace string) (int, bool) {
	for i := range subjects {
		if subjectIs(u, &subjects[i], namespace) {
			return i, true
		}
	}
	return 0, false
}

// subjectIs: a User by name, a Group by membership, a ServiceAccount by its
// username (its namespace defaults to the binding's).
func subjectIs(u user.Info, s *rbacv1.Subject, namespace string) bool {
	switch s.Kind {
	case rbacv1.UserKind:
		return u.GetName() == s.Name
	case rbacv1.GroupKind:
		for _, g := range u.GetGroups() {
			if g == s.Name {
				return true
			}
		}
		return false
	case rbacv1.ServiceAccountKind:
		ns := namespace
		if s.Namespace != "" {
			ns = s.Namespace
		}
		return ns != "" && serviceaccount.MatchesUsername(ns, s.Name, u.GetName())
	}
	return false
}

// describeSubject names a subject as the authorizer's reasons do
// (ServiceAccount "name/namespace").
func describeSubject(s *rbacv1.Subject, bindingNamespace string) string {
	if s.Kind == rbacv1.ServiceAccountKind {
		ns := s.Namespace
		if ns == "" {
			ns = bindingNamespace
		}
		return fmt.Sprintf("%s %q", s.Kind, s.Name+"/"+ns)
	}
	return fmt.Sprintf("%s %q", s.Kind, s.Name)
}

type clusterBindingSource struct {
	b *rbacv1.ClusterRoleBinding
	s *rbacv1.Subject
}

func (d clusterBindingSource) String() string {
	return fmt.Sprintf("ClusterRoleBinding %q of %s %q to %s", d.b.Name, d.b.RoleRef.Kind, d.b.RoleRef.Name, describeSubject(d.s, ""))
}

type bindingSource struct {
	b *rbacv1.RoleBinding
	s *rbacv1.Subject
}

func (d bindingSource) String() string {
	return fmt.Sprintf("RoleBinding %q of %s %q to %s", d.b.Name+"/"+d.b.Namespace, d.b.RoleRef.Kind, d.b.RoleRef.Name, describeSubject(d.s, d.b.Namespace))
}
