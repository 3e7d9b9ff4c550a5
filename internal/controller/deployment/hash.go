package deployment

import (
	"encoding/json"
	"fmt"
	"hash/fnv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/rand"
)

// Annotations and label kube-controller-manager uses.
const (
	RevisionAnnotation        = "deployment.kubernetes.io/revision"
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	MaxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
	HashLabel                 = appsv1.DefaultDeploymentUniqueLabelKey
)

// templateHash names a pod template (and its collision count).
func templateHash(t *corev1.PodTemplateSpec, collisions *int32) string {
	h := fnv.New32a()
	b, _ := json.Marshal(t)
	h.Write(b)
	if collisions != nil {
		fmt.Fprintf(h, "%d", *collisions)
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// sameTemplate compares templates ignoring the pod-template-hash label.
func sameTemplate(a, b *corev1.PodTemplateSpec) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	delete(a.Labels, HashLabel)
	delete(b.Labels, HashLabel)
	return equality.Semantic.DeepEqual(a, b)
}
