package node

import (
	corev1 "k8s.io/api/core/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// AddGraphEventHandlers keeps g up to date from a pods informer, as
// upstream's graph populator: bound pods are added, re-added when their
// node, UID, ephemeral containers or resource claim statuses change (the
// only changes that can change their references), and removed when deleted;
// pods without a node are left out. The returned function reports whether
// the handler has seen the informer's initial list.
func AddGraphEventHandlers(g *Graph, pods coreinformers.PodInformer) (cache.InformerSynced, error) {
	reg, err := pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
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
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Spec.NodeName == "" {
		return
	}
	if old, ok := oldObj.(*corev1.Pod); ok && old != nil && !referencesMayDiffer(old, pod) {
		return
	}
	g.AddPod(pod)
}

// referencesMayDiffer is upstream's test for re-adding an updated pod.
func referencesMayDiffer(old, pod *corev1.Pod) bool {
	return pod.Spec.NodeName != old.Spec.NodeName || pod.UID != old.UID ||
		len(pod.Spec.EphemeralContainers) > len(old.Spec.EphemeralContainers) ||
		!ClaimStatusesEqual(old.Status.ResourceClaimStatuses, pod.Status.ResourceClaimStatuses)
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
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Spec.NodeName == "" {
		return
	}
	g.DeletePod(pod.Namespace, pod.Name)
}

// TrimPod is the transform of the server's own pods informer, which only
// the graph, NodeRestriction and the service account token authenticator
// read: it keeps a pod's identity (namespace, name, UID, resourceVersion,
// deletionTimestamp, the mirror pod annotation), spec.nodeName, and of the
// rest only what names another object (podRefs) or decides whether an
// update re-adds the pod (referencesMayDiffer): the ServiceAccount, image
// pull secrets, resource claims and their statuses, the containers' env
// and envFrom entries that name a Secret or ConfigMap (every ephemeral
// container stays, their count matters), and the volumes that name one,
// with only those names. The graph draws the same edges from the trimmed
// pod as from the whole one (tested here and against upstream's graph in
// test/drift); at 30,000 pods the cache keeps ~0.3 KB of spec a pod
// instead of the several KB of containers, volumes, tolerations, labels
// and status it would hold.
func TrimPod(obj any) (any, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	return trimPod(pod), nil
}
