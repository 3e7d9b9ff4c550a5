package node

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/svcplane/svcplane/internal/auth/bootstrappolicy"
)

// NodeRole is the bootstrap ClusterRole whose rules the authorizer applies
// to the requests it does not subdivide (upstream passes the same rules,
// bootstrappolicy.NodeRules, to its node authorizer).
const NodeRole = "system:node"

// StaticRules returns the rules of the bootstrap policy's system:node
// ClusterRole.
func StaticRules() []rbacv1.PolicyRule {
	for _, r := range bootstrappolicy.ClusterRoles() {
		if r.Name == NodeRole {
			return r.Rules
		}
	}
	return nil
}
