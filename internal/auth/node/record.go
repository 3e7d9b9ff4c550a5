package node

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// PodRecord is what the server keeps of a pod for the three that read its
// pods informer: the Graph (the pod's node and the objects it refers to),
// NodeRestriction (its UID and node) and the service account token
// authenticator (its UID and deletionTimestamp). A decoded pod is a
// 1,192-byte struct before any of its slices, strings and maps; a record
// is ~150 bytes and its references. It is an object for the informer's
// store only (GetObjectMeta gives its key); nothing serves it.
type PodRecord struct {
	Namespace, Name   string
	UID               types.UID
	ResourceVersion   string
	DeletionTimestamp *metav1.Time
	NodeName          string

	// refs are the objects the pod gives its node access to (podRefs).
	refs []ref
	// ephemeralContainers and claimStatuses decide, with the node and the
	// UID, whether an update re-adds the pod to the Graph
	// (referencesMayDiffer).
	ephemeralContainers int
	claimStatuses       []corev1.PodResourceClaimStatus
}

// RecordPod returns the record of pod.
func RecordPod(pod *corev1.Pod) *PodRecord {
	return &PodRecord{
		Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID, ResourceVersion: pod.ResourceVersion,
		DeletionTimestamp: pod.DeletionTimestamp, NodeName: pod.Spec.NodeName,
		refs:                podRefs(pod),
		ephemeralContainers: len(pod.Spec.EphemeralContainers),
		claimStatuses:       claimStatusNames(pod.Status.ResourceClaimStatuses),
	}
}

// claimStatusNames keeps of each status what ClaimStatusesEqual compares.
func claimStatusNames(in []corev1.PodResourceClaimStatus) []corev1.PodResourceClaimStatus {
	if len(in) == 0 {
		return nil
	}
	out := make([]corev1.PodResourceClaimStatus, len(in))
	for i, s := range in {
		out[i] = corev1.PodResourceClaimStatus{Name: s.Name, ResourceClaimName: s.ResourceClaimName}
	}
	return out
}

// Pod is the pod as far as the record knows it: namespace, name, UID,
// resourceVersion, deletionTimestamp and spec.nodeName.
func (r *PodRecord) Pod() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: r.meta(), Spec: corev1.PodSpec{NodeName: r.NodeName}}
}

func (r *PodRecord) meta() metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: r.Namespace, Name: r.Name, UID: r.UID,
		ResourceVersion: r.ResourceVersion, DeletionTimestamp: r.DeletionTimestamp}
}

// GetObjectMeta gives the informer's key and index functions the
// record's identity (a new ObjectMeta each call).
func (r *PodRecord) GetObjectMeta() metav1.Object {
	m := r.meta()
	return &m
}

// GetObjectKind is the empty kind: a record is never encoded.
func (r *PodRecord) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject copies the record.
func (r *PodRecord) DeepCopyObject() runtime.Object {
	c := *r
	c.DeletionTimestamp = r.DeletionTimestamp.DeepCopy()
	c.refs = append([]ref(nil), r.refs...)
	c.claimStatuses = claimStatusNames(r.claimStatuses)
	for i := range c.claimStatuses {
		if p := c.claimStatuses[i].ResourceClaimName; p != nil {
			v := *p
			c.claimStatuses[i].ResourceClaimName = &v
		}
	}
	return &c
}
