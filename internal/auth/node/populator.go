package node

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// AddGraphEventHandlers keeps g up to date from a PodRecordInformer, as
// upstream's graph populator does from its pods informer: bound pods are
// added, re-added when their node, UID, ephemeral containers or resource
// claim statuses change (the only changes that can change their
// references), and removed when deleted; pods without a node are left
// out. The returned function reports whether the handler has seen the
// informer's initial list.
func AddGraphEventHandlers(g *Graph, pods cache.SharedIndexInformer) (cache.InformerSynced, error) {
	reg, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { updatePod(g, nil, obj) },
		UpdateFunc: func(old, obj any) { updatePod(g, old, obj) },
		DeleteFunc: func(obj any) { deletePod(g, obj) },
	})
	if err != nil {
		return nil, err
	}
	return reg.HasSynced, nil
}

func updatePod(g *Graph, oldObj, obj any) {
	pod, ok := obj.(*PodRecord)
	if !ok || pod.NodeName == "" {
		return
	}
	if old, ok := oldObj.(*PodRecord); ok && old != nil && !referencesMayDiffer(old, pod) {
		return
	}
	g.AddPod(pod)
}

// referencesMayDiffer is upstream's test for re-adding an updated pod.
func referencesMayDiffer(old, pod *PodRecord) bool {
	return pod.NodeName != old.NodeName || pod.UID != old.UID ||
		pod.ephemeralContainers > old.ephemeralContainers ||
		!ClaimStatusesEqual(old.claimStatuses, pod.claimStatuses)
}

// ClaimStatusesEqual reports whether two pods name the same resource
// claims in their status (name and claim, in order): the graph changes, and
// NodeRestriction refuses a node's status write, when they differ.
func ClaimStatusesEqual(a, b []corev1.PodResourceClaimStatus) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !ptr.Equal(a[i].ResourceClaimName, b[i].ResourceClaimName) {
			return false
		}
	}
	return true
}

func deletePod(g *Graph, obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, ok := obj.(*PodRecord)
	if !ok || pod.NodeName == "" {
		return
	}
	g.DeletePod(pod.Namespace, pod.Name)
}
