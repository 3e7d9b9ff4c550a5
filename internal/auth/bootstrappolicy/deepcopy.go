package bootstrappolicy

import (
	"maps"

	rbacv1 "k8s.io/api/rbac/v1"
)

// DeepCopy returns a copy of p that shares no memory with it.
func (p *Policy) DeepCopy() *Policy {
	if p == nil {
		return nil
	}
	out := &Policy{
		Source:                     p.Source,
		FeatureGates:               maps.Clone(p.FeatureGates),
		ClusterRolesToAggregate:    maps.Clone(p.ClusterRolesToAggregate),
		ClusterRoleBindingsToSplit: maps.Clone(p.ClusterRoleBindingsToSplit),
	}
	if p.ClusterRoles != nil {
		out.ClusterRoles = make([]rbacv1.ClusterRole, len(p.ClusterRoles))
		for i := range p.ClusterRoles {
			p.ClusterRoles[i].DeepCopyInto(&out.ClusterRoles[i])
		}
	}
	if p.ClusterRoleBindings != nil {
		out.ClusterRoleBindings = make([]rbacv1.ClusterRoleBinding, len(p.ClusterRoleBindings))
		for i := range p.ClusterRoleBindings {
			p.ClusterRoleBindings[i].DeepCopyInto(&out.ClusterRoleBindings[i])
		}
	}
	if p.NamespaceRoles != nil {
		out.NamespaceRoles = make(map[string][]rbacv1.Role, len(p.NamespaceRoles))
		for ns, roles := range p.NamespaceRoles {
			c := make([]rbacv1.Role, len(roles))
			for i := range roles {
				roles[i].DeepCopyInto(&c[i])
			}
			out.NamespaceRoles[ns] = c
		}
	}
	if p.NamespaceRoleBindings != nil {
		out.NamespaceRoleBindings = make(map[string][]rbacv1.RoleBinding, len(p.NamespaceRoleBindings))
		for ns, bindings := range p.NamespaceRoleBindings {
			c := make([]rbacv1.RoleBinding, len(bindings))
			for i := range bindings {
				bindings[i].DeepCopyInto(&c[i])
			}
			out.NamespaceRoleBindings[ns] = c
		}
	}
	return out
}
