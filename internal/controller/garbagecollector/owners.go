package garbagecollector

import (
	"context"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
)

// owners sorts a dependent's owner references as upstream's
// classifyReferences does.
type owners struct {
	// solid exist and are not being deleted in the foreground.
	solid []metav1.OwnerReference
	// dangling no longer exist (or exist under another UID).
	dangling []metav1.OwnerReference
	// waiting are being deleted in the foreground (they wait for their
	// dependents).
	waiting []metav1.OwnerReference
}

// classify looks up every owner of n: in the graph, else on the server.
func (c *Collector) classify(ctx context.Context, n *node) (owners, error) {
	var o owners
	for _, ref := range n.owners {
		st, err := c.ownerState(ctx, n, ref)
		if err != nil {
			return owners{}, err
		}
		switch {
		case st == nil:
			o.dangling = append(o.dangling, ref)
		case st.deleting && st.hasFinalizer(metav1.FinalizerDeleteDependents):
			o.waiting = append(o.waiting, ref)
		default:
			o.solid = append(o.solid, ref)
		}
	}
	return o, nil
}

// checkOwners is upstream's attemptToDeleteItem for a dependent that is
// not being deleted: with a solid owner it only drops the references to
// owners that are gone or waiting for it; without one, when an owner waits
// for it and it has dependents of its own, it is deleted in the foreground
// (its references made non-blocking first when a dependent of its own is
// waiting too: a circle); otherwise it is deleted (in the background, or
// as its own finalizers ask).
func (c *Collector) checkOwners(ctx context.Context, n *node) error {
	o, err := c.classify(ctx, n)
	if err != nil {
		return err
	}
	switch {
	case len(o.solid) > 0:
		if len(o.dangling) == 0 && len(o.waiting) == 0 {
			return nil
		}
		return c.patchOwners(ctx, n, o.solid)
	case len(o.waiting) > 0 && len(c.graph.dependentsOf(n.uid)) > 0:
		for _, d := range c.graph.dependentsOf(n.uid) {
			if d.deleting && d.hasFinalizer(metav1.FinalizerDeleteDependents) {
				klog.FromContext(ctx).V(2).Info("Garbage collector: an owner and a dependent of the object wait for their dependents; its references become non-blocking to break the circle",
					"namespace", n.namespace, "name", n.name, "resource", n.gvr)
				if err := c.patchOwners(ctx, n, unblocked(n.owners)); err != nil {
					return err
				}
				break
			}
		}
		return c.delete(ctx, n, metav1.DeletePropagationForeground)
	}
	policy := metav1.DeletePropagationBackground
	switch {
	case n.hasFinalizer(metav1.FinalizerOrphanDependents):
		policy = metav1.DeletePropagationOrphan
	case n.hasFinalizer(metav1.FinalizerDeleteDependents):
		policy = metav1.DeletePropagationForeground
	}
	return c.delete(ctx, n, policy)
}

// unblocked returns refs with blockOwnerDeletion off.
func unblocked(refs []metav1.OwnerReference) []metav1.OwnerReference {
	out := slices.Clone(refs)
	for i := range out {
		if out[i].BlockOwnerDeletion != nil && *out[i].BlockOwnerDeletion {
			off := false
			out[i].BlockOwnerDeletion = &off
		}
	}
	return out
}

// ownerState returns what is known of ref's object (the graph's node, else
// the server's copy), or nil when it no longer exists under ref's UID.
func (c *Collector) ownerState(ctx context.Context, n *node, ref metav1.OwnerReference) (*node, error) {
	if o := c.graph.get(ref.UID); o != nil {
		return o, nil
	}
	if _, gone := c.absent.Get(ref.UID); gone {
		return nil, nil
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return &node{uid: ref.UID}, nil // unparsable: leave the reference alone
	}
	mapping, err := c.restMapper().RESTMapping(gv.WithKind(ref.Kind).GroupKind(), gv.Version)
	if err != nil {
		return nil, &unknownOwnerKind{ref: ref}
	}
	ns := ""
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		ns = n.namespace
	}
	obj, err := c.meta.Resource(mapping.Resource).Namespace(ns).Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) || (err == nil && obj.UID != ref.UID) {
		c.absent.Add(ref.UID, struct{}{}) // a UID never comes back
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &node{gvr: mapping.Resource, namespace: obj.Namespace, name: obj.Name, uid: obj.UID,
		deleting: obj.DeletionTimestamp != nil, finalizers: obj.Finalizers}, nil
}

// foreground is upstream's processDeletingDependentsItem: every dependent
// is looked at (checkOwners deletes those with no other solid owner), and
// n loses its foregroundDeletion finalizer once no dependent that blocks
// its deletion is left. It reports whether n is still blocked.
func (c *Collector) foreground(ctx context.Context, n *node) (bool, error) {
	blocked := false
	for _, d := range c.graph.dependentsOf(n.uid) {
		for _, ref := range d.owners {
			if ref.UID == n.uid && ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion {
				blocked = true
			}
		}
		if !d.deleting {
			c.queue.Add(d.uid)
		}
	}
	if blocked {
		return true, nil
	}
	return false, c.removeFinalizer(ctx, n, metav1.FinalizerDeleteDependents)
}
