package deployment

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/apps/workload"
	"github.com/svcplane/svcplane/internal/registry/core/pod"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the deployments resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: appsv1.SchemeGroupVersion, Kind: "Deployment",
		Resource: "deployments", Singular: "deployment", Namespaced: true,
		ShortNames: []string{"deploy"}, Categories: []string{"all"},
		New:     func() runtime.Object { return &appsv1.Deployment{} },
		NewList: func() runtime.Object { return &appsv1.DeploymentList{} },
		Default: func(obj runtime.Object) { Default(obj.(*appsv1.Deployment)) },
		Status: &resource.StatusDefinition{
			ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
				return validateStatusUpdate(obj.(*appsv1.Deployment), old.(*appsv1.Deployment))
			},
		},
		Generation: true,
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return validate(obj.(*appsv1.Deployment))
		},
		// Upstream's ValidateDeploymentUpdate: the metadata's transition,
		// the new spec, an unchanged selector.
		UpdateMeta: resource.UpdateMetaTransition,
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			d, o := obj.(*appsv1.Deployment), old.(*appsv1.Deployment)
			errs := validate(d)
			return append(errs, workload.ValidateSelectorImmutable(d.Spec.Selector, o.Spec.Selector)...)
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Ready", "string", 0, "Number of the pod with ready state"),
			resource.Column("Up-to-date", "string", 0, "Total number of non-terminated pods targeted by this deployment that have the desired template spec."),
			resource.Column("Available", "string", 0, "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment."),
			resource.AgeColumn,
			resource.Column("Containers", "string", 1, "Names of each container in the template."),
			resource.Column("Images", "string", 1, "Images referenced by each container in the template."),
			resource.Column("Selector", "string", 1, "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment."),
		},
		Row: func(obj runtime.Object) []interface{} {
			d := obj.(*appsv1.Deployment)
			containers, images := workload.ContainersAndImages(&d.Spec.Template.Spec)
			return []interface{}{fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, *d.Spec.Replicas),
				int64(d.Status.UpdatedReplicas), int64(d.Status.AvailableReplicas), resource.AgeOf(obj),
				containers, images, workload.SelectorString(d.Spec.Selector)}
		},
	}
}

// Scale is the /scale accessor of deployments.
var Scale = resource.ScaleAccessor{
	Replicas: func(obj runtime.Object) (int32, int32, string) {
		d := obj.(*appsv1.Deployment)
		return *d.Spec.Replicas, d.Status.Replicas, workload.SelectorString(d.Spec.Selector)
	},
	SetReplicas: func(obj runtime.Object, n int32) { obj.(*appsv1.Deployment).Spec.Replicas = &n },
}

// Default fills in upstream's SetDefaults_Deployment.
func Default(d *appsv1.Deployment) {
	s := &d.Spec
	if s.Replicas == nil {
		one := int32(1)
		s.Replicas = &one
	}
	if s.Strategy.Type == "" {
		s.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
	}
	if s.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
		if s.Strategy.RollingUpdate == nil {
			s.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
		}
		quarter := intstr.FromString("25%")
		if s.Strategy.RollingUpdate.MaxUnavailable == nil {
			s.Strategy.RollingUpdate.MaxUnavailable = &quarter
		}
		if s.Strategy.RollingUpdate.MaxSurge == nil {
			q := quarter
			s.Strategy.RollingUpdate.MaxSurge = &q
		}
	}
	if s.RevisionHistoryLimit == nil {
		ten := int32(10)
		s.RevisionHistoryLimit = &ten
	}
	if s.ProgressDeadlineSeconds == nil {
		p := int32(600)
		s.ProgressDeadlineSeconds = &p
	}
	// Upstream's internal rollingUpdate holds values, not pointers: what
	// is stored has 0 for an unset one.
	if ru := s.Strategy.RollingUpdate; ru != nil {
		zero := intstr.FromInt32(0)
		if ru.MaxUnavailable == nil {
			ru.MaxUnavailable = &zero
		}
		if ru.MaxSurge == nil {
			z := zero
			ru.MaxSurge = &z
		}
	}
	pod.DefaultPodSpec(&s.Template.Spec)
}
