package drift

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/svcplane/svcplane/internal/registry/core/replicationcontroller"
)

// rcCases are ReplicationControllers as clients send them (before
// defaulting).
func rcCases() map[string]*corev1.ReplicationController {
	one, neg := int32(1), int32(-1)
	zero := int64(0)
	tmpl := func(labels map[string]string) *corev1.PodTemplateSpec {
		return &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img"}}}}
	}
	rc := func(mutate func(*corev1.ReplicationController)) *corev1.ReplicationController {
		r := &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: "rc", Namespace: "ns"},
			Spec: corev1.ReplicationControllerSpec{Template: tmpl(map[string]string{"app": "a"})}}
		mutate(r)
		return r
	}
	return map[string]*corev1.ReplicationController{
		"defaults from the template": rc(func(*corev1.ReplicationController) {}),
		"own selector and labels": rc(func(r *corev1.ReplicationController) {
			r.Spec.Selector = map[string]string{"app": "a"}
			r.Labels = map[string]string{"team": "x"}
			r.Spec.Replicas = &one
		}),
		"selector not matching": rc(func(r *corev1.ReplicationController) { r.Spec.Selector = map[string]string{"app": "b"} }),
		"no template":           rc(func(r *corev1.ReplicationController) { r.Spec.Template = nil }),
		"no template labels":    rc(func(r *corev1.ReplicationController) { r.Spec.Template.Labels = nil }),
		"negative replicas":     rc(func(r *corev1.ReplicationController) { r.Spec.Replicas = &neg }),
		"negative minReady":     rc(func(r *corev1.ReplicationController) { r.Spec.MinReadySeconds = -1 }),
		"restartPolicy Never":   rc(func(r *corev1.ReplicationController) { r.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever }),
		"activeDeadlineSeconds": rc(func(r *corev1.ReplicationController) { r.Spec.Template.Spec.ActiveDeadlineSeconds = &zero }),
		"invalid template label": rc(func(r *corev1.ReplicationController) {
			r.Spec.Template.Labels = map[string]string{"app": "a", "bad key!": "x"}
		}),
		"invalid selector key": rc(func(r *corev1.ReplicationController) {
			r.Spec.Selector = map[string]string{"bad key!": "x"}
			r.Spec.Template.Labels = map[string]string{"bad key!": "x"}
		}),
		"ephemeral containers": rc(func(r *corev1.ReplicationController) {
			r.Spec.Template.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "e", Image: "i"}}}
		}),
	}
}

// TestReplicationControllerMatchesUpstream runs each case through
// upstream's v1 defaulting (SetDefaults_ReplicationController) and
// ValidateReplicationController, and through ours: the defaulted
// ReplicationController fields and the error paths and types must agree.
func TestReplicationControllerMatchesUpstream(t *testing.T) {
	def := replicationcontroller.Definition()
	for name, in := range rcCases() {
		t.Run(name, func(t *testing.T) {
			theirs, ours := in.DeepCopy(), in.DeepCopy()
			legacyscheme.Scheme.Default(theirs)
			def.Default(ours)
			if !reflect.DeepEqual(theirs.Labels, ours.Labels) || !reflect.DeepEqual(theirs.Spec.Selector, ours.Spec.Selector) ||
				!reflect.DeepEqual(theirs.Spec.Replicas, ours.Spec.Replicas) {
				t.Errorf("defaults: upstream labels %v selector %v replicas %v; ours %v %v %v", theirs.Labels, theirs.Spec.Selector,
					theirs.Spec.Replicas, ours.Labels, ours.Spec.Selector, ours.Spec.Replicas)
			}
			internal := &api.ReplicationController{}
			toInternal(t, theirs, internal)
			sameErrors(t, def, ours, validation.ValidateReplicationController(internal, validation.PodValidationOptions{}))
		})
	}
}
