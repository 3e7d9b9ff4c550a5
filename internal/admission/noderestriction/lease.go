package noderestriction

import (
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/admission"

	"github.com/svcplane/svcplane/internal/auth/node"
)

// errOwnLease is upstream's message for another node's lease.
var errOwnLease = fmt.Errorf("can only access node lease with the same name as the requesting node")

// admitLease: a node writes only kube-node-lease/<its name>.
func admitLease(nodeName string, a admission.Attributes) error {
	if a.GetNamespace() != node.NamespaceNodeLease {
		return admission.NewForbidden(a, fmt.Errorf("can only access leases in the %q system namespace", node.NamespaceNodeLease))
	}
	name := a.GetName()
	if a.GetOperation() == admission.Create {
		l, ok := a.GetObject().(*coordinationv1.Lease)
		if !ok {
			return admission.NewForbidden(a, fmt.Errorf("unexpected type %T", a.GetObject()))
		}
		name = l.Name
	}
	if name != nodeName {
		return admission.NewForbidden(a, errOwnLease)
	}
	return nil
}

// admitServiceAccount: a node's token requests are bound to a pod (by
// name and UID) bound to the node.
func (p *Plugin) admitServiceAccount(nodeName string, a admission.Attributes) error {
	if a.GetOperation() != admission.Create || a.GetSubresource() != "token" {
		return nil
	}
	tr, ok := a.GetObject().(*authenticationv1.TokenRequest)
	if !ok {
		return admission.NewForbidden(a, fmt.Errorf("unexpected type %T", a.GetObject()))
	}
	ref := tr.Spec.BoundObjectRef
	if ref == nil || ref.APIVersion != "v1" || ref.Kind != "Pod" || ref.Name == "" {
		return admission.NewForbidden(a, fmt.Errorf("node requested token not bound to a pod"))
	}
	if ref.UID == "" {
		return admission.NewForbidden(a, fmt.Errorf("node requested token with a pod binding without a uid"))
	}
	pod, err := p.pods.Get(a.GetNamespace(), ref.Name)
	if apierrors.IsNotFound(err) {
		return err
	}
	if err != nil {
		return admission.NewForbidden(a, err)
	}
	if ref.UID != pod.UID {
		return admission.NewForbidden(a, fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
	}
	if pod.NodeName != nodeName {
		return admission.NewForbidden(a, fmt.Errorf("node requested token bound to a pod scheduled on a different node"))
	}
	return nil
}
