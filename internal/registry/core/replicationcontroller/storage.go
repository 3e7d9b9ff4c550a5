package replicationcontroller

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/apps/workload"
	"github.com/svcplane/svcplane/internal/registry/core/pod"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the replicationcontrollers resource.
func Definition() *resource.Definition {
	spec, status := corev1.ReplicationControllerSpec{}.SwaggerDoc(), corev1.ReplicationControllerStatus{}.SwaggerDoc()
	return &resource.Definition{
		GroupVersion: corev1.SchemeGroupVersion, Kind: "ReplicationController",
		Resource: "replicationcontrollers", Singular: "replicationcontroller", Namespaced: true,
		ShortNames: []string{"rc"}, Categories: []string{"all"},
		EtcdPrefix: "controllers",
		New:        func() runtime.Object { return &corev1.ReplicationController{} },
		NewList:    func() runtime.Object { return &corev1.ReplicationControllerList{} },
		Default:    func(obj runtime.Object) { Default(obj.(*corev1.ReplicationController)) },
		Generation: true,
		Status: &resource.StatusDefinition{
			ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
				return ValidateStatus(&obj.(*corev1.ReplicationController).Status, field.NewPath("status"))
			},
		},
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return ValidateSpec(&obj.(*corev1.ReplicationController).Spec, field.NewPath("spec"))
		},
		// Upstream's ValidateReplicationControllerUpdate: the metadata's
		// transition and the new spec.
		UpdateMeta: resource.UpdateMetaTransition,
		// Upstream: addConversionFuncs (pkg/apis/core/v1/conversion.go) and
		// ControllerToSelectableFields.
		FieldLabelNames: []string{"status.replicas"},
		FieldLabels: func(obj runtime.Object) fields.Set {
			return fields.Set{"status.replicas": strconv.Itoa(int(obj.(*corev1.ReplicationController).Status.Replicas))}
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Desired", "integer", 0, spec["replicas"]),
			resource.Column("Current", "integer", 0, status["replicas"]),
			resource.Column("Ready", "integer", 0, status["readyReplicas"]),
			resource.AgeColumn,
			resource.Column("Containers", "string", 1, "Names of each container in the template."),
			resource.Column("Images", "string", 1, "Images referenced by each container in the template."),
			resource.Column("Selector", "string", 1, spec["selector"]),
		},
		Row: row,
	}
}

func row(obj runtime.Object) []interface{} {
	rc := obj.(*corev1.ReplicationController)
	var containers, images string
	if rc.Spec.Template != nil {
		containers, images = workload.ContainersAndImages(&rc.Spec.Template.Spec)
	}
	desired := int64(0)
	if rc.Spec.Replicas != nil {
		desired = int64(*rc.Spec.Replicas)
	}
	return []interface{}{desired, int64(rc.Status.Replicas), int64(rc.Status.ReadyReplicas),
		resource.AgeOf(obj), containers, images, labels.FormatLabels(rc.Spec.Selector)}
}

// Default is upstream's SetDefaults_ReplicationController (and the pod
// template's defaults).
func Default(rc *corev1.ReplicationController) {
	if rc.Spec.Template != nil {
		if l := rc.Spec.Template.Labels; l != nil {
			if len(rc.Spec.Selector) == 0 {
				rc.Spec.Selector = l
			}
			if len(rc.Labels) == 0 {
				rc.Labels = l
			}
		}
		pod.DefaultPodSpec(&rc.Spec.Template.Spec)
	}
	if rc.Spec.Replicas == nil {
		one := int32(1)
		rc.Spec.Replicas = &one
	}
}

// Scale is the /scale accessor of replicationcontrollers.
var Scale = resource.ScaleAccessor{
	Replicas: func(obj runtime.Object) (int32, int32, string) {
		rc := obj.(*corev1.ReplicationController)
		spec := int32(0)
		if rc.Spec.Replicas != nil {
			spec = *rc.Spec.Replicas
		}
		return spec, rc.Status.Replicas, labels.SelectorFromSet(rc.Spec.Selector).String()
	},
	SetReplicas: func(obj runtime.Object, n int32) { obj.(*corev1.ReplicationController).Spec.Replicas = &n },
}
