package drift

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/apps"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	appsvalidation "k8s.io/kubernetes/pkg/apis/apps/validation"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/svcplane/svcplane/internal/registry/apps/deployment"
)

// deploymentCases: the Deployments issue 14 found accepted where
// upstream refuses them, and their valid neighbours.
func deploymentCases() map[string]*appsv1.Deployment {
	d := func(mutate func(*appsv1.Deployment)) *appsv1.Deployment {
		dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns"},
			Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a"}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img"}}}}}}
		mutate(dep)
		return dep
	}
	i32 := func(v int32) *int32 { return &v }
	i64 := func(v int64) *int64 { return &v }
	return map[string]*appsv1.Deployment{
		"minimal":                             d(func(*appsv1.Deployment) {}),
		"progress deadline below minReady":    d(func(x *appsv1.Deployment) { x.Spec.MinReadySeconds, x.Spec.ProgressDeadlineSeconds = 30, i32(20) }),
		"progress deadline equal to minReady": d(func(x *appsv1.Deployment) { x.Spec.MinReadySeconds, x.Spec.ProgressDeadlineSeconds = 30, i32(30) }),
		"progress deadline above minReady":    d(func(x *appsv1.Deployment) { x.Spec.MinReadySeconds, x.Spec.ProgressDeadlineSeconds = 30, i32(31) }),
		"negative progress deadline":          d(func(x *appsv1.Deployment) { x.Spec.ProgressDeadlineSeconds = i32(-1) }),
		"activeDeadlineSeconds in the template": d(func(x *appsv1.Deployment) {
			x.Spec.Template.Spec.ActiveDeadlineSeconds = i64(10)
		}),
		"negative minReady": d(func(x *appsv1.Deployment) { x.Spec.MinReadySeconds = -1 }),
	}
}

// TestDeploymentMatchesUpstream runs each case through upstream's v1
// defaulting and ValidateDeployment and through ours: the error paths and
// types must agree.
func TestDeploymentMatchesUpstream(t *testing.T) {
	def := deployment.Definition()
	for name, in := range deploymentCases() {
		t.Run(name, func(t *testing.T) {
			theirs, ours := in.DeepCopy(), in.DeepCopy()
			legacyscheme.Scheme.Default(theirs)
			def.Default(ours)
			internal := &apps.Deployment{}
			toInternal(t, theirs, internal)
			sameErrors(t, def, ours, appsvalidation.ValidateDeployment(internal, corevalidation.PodValidationOptions{}))
		})
	}
}
