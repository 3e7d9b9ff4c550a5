package endpoints

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func pod(i int, ready bool) *corev1.Pod {
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: fmt.Sprintf("p%d", i)},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: fmt.Sprintf("10.%d.%d.%d", i/65536, i/256%256, i%256),
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}}}
}

func TestSubsets(t *testing.T) {
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "web", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: intstr.FromString("http")}}}}
	subsets, truncated := subsetsFor(svc, []*corev1.Pod{pod(1, true), pod(2, false)})
	if truncated || len(subsets) != 1 || len(subsets[0].Addresses) != 1 || len(subsets[0].NotReadyAddresses) != 1 ||
		subsets[0].Ports[0].Port != 8080 || subsets[0].Ports[0].Name != "web" {
		t.Fatalf("subsets: %+v", subsets)
	}
	var many []*corev1.Pod
	for i := 0; i < 1200; i++ {
		many = append(many, pod(i, i%2 == 0))
	}
	subsets, truncated = subsetsFor(svc, many)
	n := len(subsets[0].Addresses) + len(subsets[0].NotReadyAddresses)
	if !truncated || n != MaxCapacity || len(subsets[0].Addresses) != 600 {
		t.Fatalf("truncation: %v, %d addresses (%d ready)", truncated, n, len(subsets[0].Addresses))
	}
}
