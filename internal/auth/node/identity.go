package node

import (
	"strings"

	"k8s.io/apiserver/pkg/authentication/user"
)

// UserPrefix starts every node's user name: "system:node:<node name>".
const UserPrefix = "system:node:"

// UserName is the user of the node called name.
func UserName(name string) string { return UserPrefix + name }

// Identity returns the node a user is, as upstream's default node
// identifier (pkg/auth/nodeidentifier): a user named "system:node:<name>"
// in group system:nodes is node <name> (isNode, with name possibly empty);
// any other user is not a node.
func Identity(u user.Info) (name string, isNode bool) {
	if u == nil {
		return "", false
	}
	rest, ok := strings.CutPrefix(u.GetName(), UserPrefix)
	if !ok {
		return "", false
	}
	for _, g := range u.GetGroups() {
		if g == user.NodesGroup {
			return rest, true
		}
	}
	return "", false
}
