package deployment

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestTemplateHashIsUpstreams pins two values kube-controller-manager
// v1.36.3 computes (test/drift compares many more with its code).
func TestTemplateHashIsUpstreams(t *testing.T) {
	tmpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
	one := int32(1)
	if got := TemplateHash(&tmpl, nil); got != "6648d65d9c" {
		t.Errorf("hash = %q, upstream 6648d65d9c", got)
	}
	if got := TemplateHash(&tmpl, &one); got != "7f7db6dfb4" {
		t.Errorf("hash with collisionCount 1 = %q, upstream 7f7db6dfb4", got)
	}
}

func TestReplicaSetNameFitsASubdomain(t *testing.T) {
	if got := ReplicaSetName("web", "6648d65d9c"); got != "web-6648d65d9c" {
		t.Errorf("name = %q", got)
	}
	long := strings.Repeat("d", 253)
	got := ReplicaSetName(long, "6648d65d9c")
	if len(got) != 253 || !strings.HasSuffix(got, "-6648d65d9c") || !strings.HasPrefix(got, strings.Repeat("d", 242)) {
		t.Errorf("long name = %q (%d)", got, len(got))
	}
}
