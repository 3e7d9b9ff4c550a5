package deployment

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/dump"
)

// Annotations and label kube-controller-manager uses.
const (
	RevisionAnnotation        = "deployment.kubernetes.io/revision"
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	MaxReplicasAnnotation     = "deployment.kubernetes.io/max-replicas"
	HashLabel                 = appsv1.DefaultDeploymentUniqueLabelKey
)

// TemplateHash is the pod-template-hash of a pod template and collision
// count, bit for bit upstream's controller.ComputeHash: FNV-32a over the
// spew dump of the template value (k8s.io/utils/dump.ForHash, the printer
// config upstream's DeepHashObject uses), then the collision count as
// 8 little-endian bytes (a uint32 in the low four), encoded with
// rand.SafeEncodeString. test/drift compares it with upstream's.
func TemplateHash(t *corev1.PodTemplateSpec, collisions *int32) string {
	h := fnv.New32a()
	fmt.Fprintf(h, "%v", dump.ForHash(*t))
	if collisions != nil {
		b := make([]byte, 8)
		binary.LittleEndian.PutUint32(b, uint32(*collisions))
		h.Write(b)
	}
	return rand.SafeEncodeString(fmt.Sprint(h.Sum32()))
}

// ReplicaSetName is the name of a Deployment's ReplicaSet for a hash, as
// upstream's generateReplicaSetName: the Deployment's name cut so that
// name-hash fits in a DNS-1123 subdomain (253).
func ReplicaSetName(deployment, hash string) string {
	if n := validation.DNS1123SubdomainMaxLength - 1 - len(hash); len(deployment) > n && n > 0 {
		deployment = deployment[:n]
	}
	return deployment + "-" + hash
}

// sameTemplate compares templates ignoring the pod-template-hash label.
func sameTemplate(a, b *corev1.PodTemplateSpec) bool {
	a, b = a.DeepCopy(), b.DeepCopy()
	delete(a.Labels, HashLabel)
	delete(b.Labels, HashLabel)
	return equality.Semantic.DeepEqual(a, b)
}
