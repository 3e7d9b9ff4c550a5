package node

import (
	"fmt"

	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// The node's own objects: its Node, the pods bound to it, its Lease, its
// CSINode and its ResourceSlices. Creates and updates are allowed for
// every name here; the NodeRestriction admission plugin, which sees the
// objects, narrows them to the node's own.

// authorizeNode: read only its own Node (by name, so a kubelet can look
// for it before creating it); create, update, patch and status.
func authorizeNode(node string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	switch attrs.GetSubresource() {
	case "":
		switch attrs.GetVerb() {
		case "create", "update", "patch":
			return authorizer.DecisionAllow, "", nil
		case "get", "list", "watch":
			switch attrs.GetName() {
			case node:
				return authorizer.DecisionAllow, "", nil
			case "":
				return authorizer.DecisionNoOpinion, fmt.Sprintf("node '%s' cannot read all nodes, only its own Node object", node), nil
			default:
				return authorizer.DecisionNoOpinion, fmt.Sprintf("node '%s' cannot read '%s', only its own Node object", node, attrs.GetName()), nil
			}
		}
	case "status":
		switch attrs.GetVerb() {
		case "update", "patch":
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// pod: get of a pod bound to the node, list/watch with the field selector
// spec.nodeName=<node> (or of one bound pod), create/delete (mirror pods),
// status update/patch and eviction.
func (a *Authorizer) pod(node string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	switch attrs.GetSubresource() {
	case "":
		switch attrs.GetVerb() {
		case "get":
			return a.get(node, kindPod, attrs)
		case "list", "watch":
			if fieldSelects(attrs, "spec.nodeName", node) {
				return authorizer.DecisionAllow, "", nil
			}
			if attrs.GetName() != "" {
				return a.related(node, kindPod, attrs)
			}
			return authorizer.DecisionNoOpinion, "can only list/watch pods with spec.nodeName field selector", nil
		case "create", "delete":
			return authorizer.DecisionAllow, "", nil
		}
	case "status":
		switch attrs.GetVerb() {
		case "update", "patch":
			return authorizer.DecisionAllow, "", nil
		}
	case "eviction":
		if attrs.GetVerb() == "create" {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// authorizeLease: get, create, update, patch, delete of the Lease named as
// the node in kube-node-lease (create of any name there).
func authorizeLease(node string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	verb := attrs.GetVerb()
	switch verb {
	case "get", "create", "update", "patch", "delete":
	default:
		return authorizer.DecisionNoOpinion, "can only get, create, update, patch, or delete a node lease", nil
	}
	if attrs.GetNamespace() != NamespaceNodeLease {
		return authorizer.DecisionNoOpinion, fmt.Sprintf("can only access leases in the %q system namespace", NamespaceNodeLease), nil
	}
	if verb != "create" && attrs.GetName() != node {
		return authorizer.DecisionNoOpinion, "can only access node lease with the same name as the requesting node", nil
	}
	return authorizer.DecisionAllow, "", nil
}

// authorizeCSINode: as the Lease, for the CSINode named as the node.
func authorizeCSINode(node string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	verb := attrs.GetVerb()
	switch verb {
	case "get", "create", "update", "patch", "delete":
	default:
		return authorizer.DecisionNoOpinion, "can only get, create, update, patch, or delete a CSINode", nil
	}
	if attrs.GetSubresource() != "" {
		return authorizer.DecisionNoOpinion, "cannot authorize CSINode subresources", nil
	}
	if verb != "create" && attrs.GetName() != node {
		return authorizer.DecisionNoOpinion, "can only access CSINode with the same name as the requesting node", nil
	}
	return authorizer.DecisionAllow, "", nil
}

// resourceSlice: create; reads and writes of slices of the node (none in
// svcplane's graph); list/watch/deletecollection with the field selector
// spec.nodeName=<node>.
func (a *Authorizer) resourceSlice(node string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	if attrs.GetSubresource() != "" {
		return authorizer.DecisionNoOpinion, "cannot authorize ResourceSlice subresources", nil
	}
	switch attrs.GetVerb() {
	case "create":
		return authorizer.DecisionAllow, "", nil
	case "get", "update", "patch", "delete":
		return a.related(node, kindUnrelated, attrs)
	case "watch", "list", "deletecollection":
		if fieldSelects(attrs, "spec.nodeName", node) {
			return authorizer.DecisionAllow, "", nil
		}
		return authorizer.DecisionNoOpinion, "can only list/watch/deletecollection resourceslices with nodeName field selector", nil
	}
	return authorizer.DecisionNoOpinion, "only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection", nil
}
