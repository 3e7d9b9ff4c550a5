package node

import (
	"context"
	"errors"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"

	"github.com/svcplane/svcplane/internal/auth/rbac"
)

// NamespaceNodeLease holds the nodes' heartbeat Leases.
const NamespaceNodeLease = "kube-node-lease"

// Authorizer is the Node authorizer: it has an opinion only on requests of
// node identities, and then allows or gives no opinion (never denies), as
// upstream's NodeAuthorizer.
type Authorizer struct {
	graph *Graph
	rules []rbacv1.PolicyRule
}

var (
	_ authorizer.Authorizer   = (*Authorizer)(nil)
	_ authorizer.RuleResolver = (*Authorizer)(nil)
)

// New returns the authorizer over graph, applying rules (StaticRules in
// the server) to the requests it does not subdivide.
func New(graph *Graph, rules []rbacv1.PolicyRule) *Authorizer {
	return &Authorizer{graph: graph, rules: rules}
}

// errNoRuleResolution is upstream's answer to a node's rules review.
var errNoRuleResolution = errors.New("node authorizer does not support user rule resolution")

// RulesFor reports, for a node, that its rules cannot be listed
// (incomplete, with upstream's error); for anyone else no rules.
func (a *Authorizer) RulesFor(ctx context.Context, u user.Info, namespace string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	if _, isNode := Identity(u); isNode {
		return nil, nil, true, errNoRuleResolution
	}
	return nil, nil, false, nil
}

// The resources whose access the authorizer subdivides.
var (
	secrets         = schema.GroupResource{Resource: "secrets"}
	configMaps      = schema.GroupResource{Resource: "configmaps"}
	pods            = schema.GroupResource{Resource: "pods"}
	nodes           = schema.GroupResource{Resource: "nodes"}
	pvcs            = schema.GroupResource{Resource: "persistentvolumeclaims"}
	pvs             = schema.GroupResource{Resource: "persistentvolumes"}
	serviceAccounts = schema.GroupResource{Resource: "serviceaccounts"}
	leases          = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}
	resourceSlices  = schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceslices"}
	resourceClaims  = schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}
	attachments     = schema.GroupResource{Group: "storage.k8s.io", Resource: "volumeattachments"}
	csiNodes        = schema.GroupResource{Group: "storage.k8s.io", Resource: "csinodes"}
	podCertRequests = schema.GroupResource{Group: "certificates.k8s.io", Resource: "podcertificaterequests"}
)

// Authorize decides a request as upstream's NodeAuthorizer.
func (a *Authorizer) Authorize(ctx context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	node, isNode := Identity(attrs.GetUser())
	if !isNode {
		return authorizer.DecisionNoOpinion, "", nil
	}
	if node == "" {
		return authorizer.DecisionNoOpinion, fmt.Sprintf("unknown node for user %q", attrs.GetUser().GetName()), nil
	}
	if attrs.IsResourceRequest() {
		switch (schema.GroupResource{Group: attrs.GetAPIGroup(), Resource: attrs.GetResource()}) {
		case secrets:
			return a.readNamespaced(node, kindSecret, attrs)
		case configMaps:
			return a.readNamespaced(node, kindConfigMap, attrs)
		case pvcs:
			if attrs.GetSubresource() == "status" {
				return a.statusUpdate(node, kindPVC, attrs)
			}
			return a.get(node, kindPVC, attrs)
		case pvs:
			return a.get(node, kindUnrelated, attrs)
		case resourceClaims:
			return a.get(node, kindResourceClaim, attrs)
		case attachments:
			return a.get(node, kindUnrelated, attrs)
		case serviceAccounts:
			return a.serviceAccount(node, attrs)
		case leases:
			return authorizeLease(node, attrs)
		case csiNodes:
			return authorizeCSINode(node, attrs)
		case resourceSlices:
			return a.resourceSlice(node, attrs)
		case nodes:
			return authorizeNode(node, attrs)
		case pods:
			return a.pod(node, attrs)
		case podCertRequests:
			// The PodCertificateRequest feature is off by default.
			return authorizer.DecisionNoOpinion, "", nil
		}
	}
	if rbac.RulesAllow(attrs, a.rules...) {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// related allows a request for the named object when a path leads from it
// to node in the graph.
func (a *Authorizer) related(node string, k kind, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	if attrs.GetName() == "" {
		return authorizer.DecisionNoOpinion, "No Object name found", nil
	}
	if !a.hasPath(node, k, attrs.GetNamespace(), attrs.GetName()) {
		return authorizer.DecisionNoOpinion, noRelationship(node), nil
	}
	return authorizer.DecisionAllow, "", nil
}

func noRelationship(node string) string {
	return fmt.Sprintf("no relationship found between node '%s' and this object", node)
}

// hasPath reports whether the object leads to node: a pod when bound to
// it, a referenced object when a pod bound to it refers to it. Objects of
// the kinds svcplane does not serve (PersistentVolumes, VolumeAttachments,
// ResourceSlices) never do.
func (a *Authorizer) hasPath(node string, k kind, namespace, name string) bool {
	switch k {
	case kindPod:
		return a.graph.podOnNode(node, namespace, name)
	case kindUnrelated:
		return false
	}
	return a.graph.referencedFrom(node, ref{k, namespace, name})
}

// statusUpdate allows update/patch of the status of a related object.
func (a *Authorizer) statusUpdate(node string, k kind, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	switch attrs.GetVerb() {
	case "update", "patch":
	default:
		return authorizer.DecisionNoOpinion, "can only get/update/patch this type", nil
	}
	if attrs.GetSubresource() != "status" {
		return authorizer.DecisionNoOpinion, "can only update status subresource", nil
	}
	return a.related(node, k, attrs)
}

// get allows get of a related object.
func (a *Authorizer) get(node string, k kind, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	if attrs.GetVerb() != "get" {
		return authorizer.DecisionNoOpinion, "can only get individual resources of this type", nil
	}
	if attrs.GetSubresource() != "" {
		return authorizer.DecisionNoOpinion, "cannot get subresource", nil
	}
	return a.related(node, k, attrs)
}

// readNamespaced allows get, list and watch of one related namespaced
// object.
func (a *Authorizer) readNamespaced(node string, k kind, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	switch attrs.GetVerb() {
	case "get", "list", "watch":
	default:
		return authorizer.DecisionNoOpinion, "can only read resources of this type", nil
	}
	if attrs.GetSubresource() != "" {
		return authorizer.DecisionNoOpinion, "cannot read subresource", nil
	}
	if attrs.GetNamespace() == "" {
		return authorizer.DecisionNoOpinion, "can only read namespaced object of this type", nil
	}
	return a.related(node, k, attrs)
}

// serviceAccount allows get of a related ServiceAccount and create of a
// token for one.
func (a *Authorizer) serviceAccount(node string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	if attrs.GetVerb() == "get" && attrs.GetSubresource() == "" {
		return a.readNamespaced(node, kindServiceAccount, attrs)
	}
	if attrs.GetVerb() != "create" || attrs.GetName() == "" {
		return authorizer.DecisionNoOpinion, "can only create tokens for individual service accounts", nil
	}
	if attrs.GetSubresource() != "token" {
		return authorizer.DecisionNoOpinion, "can only create token subresource of serviceaccount", nil
	}
	return a.related(node, kindServiceAccount, attrs)
}

// fieldSelects reports whether the request's field selector requires
// field == value.
func fieldSelects(attrs authorizer.Attributes, field, value string) bool {
	reqs, _ := attrs.GetFieldSelector()
	for _, r := range reqs {
		if r.Field == field && r.Operator == selection.Equals && r.Value == value {
			return true
		}
	}
	return false
}
