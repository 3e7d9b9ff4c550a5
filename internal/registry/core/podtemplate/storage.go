package podtemplate

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/apps/workload"
	"github.com/svcplane/svcplane/internal/registry/core/pod"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the podtemplates resource.
func Definition() *resource.Definition {
	validate := func(_ context.Context, obj runtime.Object) field.ErrorList {
		return pod.ValidatePodTemplateSpec(&obj.(*corev1.PodTemplate).Template, field.NewPath("template"))
	}
	return &resource.Definition{
		GroupVersion: corev1.SchemeGroupVersion, Kind: "PodTemplate",
		Resource: "podtemplates", Singular: "podtemplate", Namespaced: true,
		New:     func() runtime.Object { return &corev1.PodTemplate{} },
		NewList: func() runtime.Object { return &corev1.PodTemplateList{} },
		Default: func(obj runtime.Object) { pod.DefaultPodSpec(&obj.(*corev1.PodTemplate).Template.Spec) },
		// The generation counts changes of the template (upstream's
		// strategy).
		PrepareForCreate: func(ctx context.Context, obj runtime.Object) { obj.(*corev1.PodTemplate).Generation = 1 },
		PrepareForUpdate: func(ctx context.Context, obj, old runtime.Object) {
			t, o := obj.(*corev1.PodTemplate), old.(*corev1.PodTemplate)
			t.Generation = o.Generation
			if !apiequality.Semantic.DeepEqual(t.Template, o.Template) {
				t.Generation = o.Generation + 1
			}
		},
		Validate: validate,
		// Upstream's ValidatePodTemplateUpdate: the metadata's transition
		// and the new template.
		UpdateMeta: resource.UpdateMetaTransition,
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Containers", "string", 0, "Names of each container in the template."),
			resource.Column("Images", "string", 0, "Images referenced by each container in the template."),
			resource.Column("Pod Labels", "string", 0, "The labels for the pod template."),
		},
		Row: func(obj runtime.Object) []interface{} {
			t := obj.(*corev1.PodTemplate)
			containers, images := workload.ContainersAndImages(&t.Template.Spec)
			return []interface{}{containers, images, labels.FormatLabels(t.Template.Labels)}
		},
	}
}
