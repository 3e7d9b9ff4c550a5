package integration

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPodTemplates: core/v1 podtemplates are served (upstream's chunking
// conformance spec lists 400 of them), defaulted and validated as
// upstream, with field paths under template.
func TestPodTemplates(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	api := c.CoreV1().PodTemplates(ns)
	pt := &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Template: corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "pause"}}}}}
	got := get(api.Create(ctx, pt, metav1.CreateOptions{}))(t)
	if got.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways || got.Template.Spec.DNSPolicy != corev1.DNSClusterFirst {
		t.Fatalf("template not defaulted: %+v", got.Template.Spec)
	}
	for i := 0; i < 5; i++ {
		p := pt.DeepCopy()
		p.Name = "t" + string(rune('a'+i))
		get(api.Create(ctx, p, metav1.CreateOptions{}))(t)
	}
	page := get(api.List(ctx, metav1.ListOptions{Limit: 2}))(t)
	if len(page.Items) != 2 || page.Continue == "" {
		t.Fatalf("paged list: %d items, continue %q", len(page.Items), page.Continue)
	}
	bad := pt.DeepCopy()
	bad.Name, bad.Template.Spec.Containers[0].Name = "bad", "Not_A_Name"
	_, err := api.Create(ctx, bad, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "template.spec.containers[0].name") {
		t.Fatalf("invalid template: %v", err)
	}
}
