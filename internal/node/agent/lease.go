package agent

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// renewLease renews node's Lease in kube-node-lease (creating it, owned
// by the Node, as the kubelet does). The last written Lease is kept, so a
// renewal is one update; a conflict drops it and the retry reads afresh.
func (a *Agent) renewLease(ctx context.Context, node *corev1.Node) error {
	leases := a.cfg.HeartbeatClient.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	a.mu.Lock()
	lease := a.leases[node.Name]
	a.mu.Unlock()
	if lease == nil {
		got, err := leases.Get(ctx, node.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			created, err := leases.Create(ctx, a.newLease(node), metav1.CreateOptions{})
			if err != nil {
				return err
			}
			a.storeLease(node.Name, created)
			return nil
		case err != nil:
			return err
		}
		lease = got
	}
	lease = lease.DeepCopy()
	a.setLeaseSpec(lease, node)
	updated, err := leases.Update(ctx, lease, metav1.UpdateOptions{})
	if err != nil {
		a.storeLease(node.Name, nil)
		return err
	}
	a.storeLease(node.Name, updated)
	return nil
}

func (a *Agent) storeLease(name string, l *coordinationv1.Lease) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if l == nil {
		delete(a.leases, name)
		return
	}
	a.leases[name] = l
}

func (a *Agent) newLease(node *corev1.Node) *coordinationv1.Lease {
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: node.Name, Namespace: corev1.NamespaceNodeLease}}
	a.setLeaseSpec(l, node)
	return l
}

// setLeaseSpec sets holder, duration and renew time, and the owner
// reference to the Node (so the Lease goes with it).
func (a *Agent) setLeaseSpec(l *coordinationv1.Lease, node *corev1.Node) {
	l.Spec.HolderIdentity = ptr.To(node.Name)
	l.Spec.LeaseDurationSeconds = ptr.To(int32(a.cfg.LeaseDuration.Seconds()))
	l.Spec.RenewTime = &metav1.MicroTime{Time: a.cfg.Clock.Now()}
	if len(l.OwnerReferences) == 0 && node.UID != "" {
		l.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID}}
	}
}
