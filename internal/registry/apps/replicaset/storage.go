package replicaset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/apps/workload"
	"github.com/svcplane/svcplane/internal/registry/core/pod"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the replicasets resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: appsv1.SchemeGroupVersion, Kind: "ReplicaSet",
		Resource: "replicasets", Singular: "replicaset", Namespaced: true,
		ShortNames: []string{"rs"}, Categories: []string{"all"},
		New:     func() runtime.Object { return &appsv1.ReplicaSet{} },
		NewList: func() runtime.Object { return &appsv1.ReplicaSetList{} },
		Default: func(obj runtime.Object) {
			rs := obj.(*appsv1.ReplicaSet)
			if rs.Spec.Replicas == nil {
				one := int32(1)
				rs.Spec.Replicas = &one
			}
			pod.DefaultPodSpec(&rs.Spec.Template.Spec)
		},
		Status: &resource.StatusDefinition{
			// Upstream's ValidateReplicaSetStatusUpdate.
			ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
				st := &obj.(*appsv1.ReplicaSet).Status
				return workload.ValidateReplicaCounts(workload.ReplicaCounts{Replicas: &st.Replicas, FullyLabeled: &st.FullyLabeledReplicas,
					Ready: &st.ReadyReplicas, Available: &st.AvailableReplicas, Terminating: st.TerminatingReplicas,
					ObservedGeneration: st.ObservedGeneration}, field.NewPath("status"))
			},
		},
		Generation: true,
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			s := &obj.(*appsv1.ReplicaSet).Spec
			return workload.ValidateReplicasAndTemplate(s.Replicas, s.Selector, &s.Template, s.MinReadySeconds, field.NewPath("spec"))
		},
		// Upstream's ValidateReplicaSetUpdate: the metadata's transition,
		// the new spec, an unchanged selector.
		UpdateMeta: resource.UpdateMetaTransition,
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			s := &obj.(*appsv1.ReplicaSet).Spec
			errs := workload.ValidateReplicasAndTemplate(s.Replicas, s.Selector, &s.Template, s.MinReadySeconds, field.NewPath("spec"))
			return append(errs, workload.ValidateSelectorImmutable(s.Selector, old.(*appsv1.ReplicaSet).Spec.Selector)...)
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Desired", "integer", 0, "Replicas is the number of desired replicas."),
			resource.Column("Current", "integer", 0, "Replicas is the most recently observed number of replicas."),
			resource.Column("Ready", "integer", 0, "The number of ready replicas for this replica set."),
			resource.AgeColumn,
			resource.Column("Containers", "string", 1, "Names of each container in the template."),
			resource.Column("Images", "string", 1, "Images referenced by each container in the template."),
			resource.Column("Selector", "string", 1, "Selector is a label query over pods that should match the replica count."),
		},
		Row: func(obj runtime.Object) []interface{} {
			rs := obj.(*appsv1.ReplicaSet)
			containers, images := workload.ContainersAndImages(&rs.Spec.Template.Spec)
			return []interface{}{int64(*rs.Spec.Replicas), int64(rs.Status.Replicas), int64(rs.Status.ReadyReplicas),
				resource.AgeOf(obj), containers, images, workload.SelectorString(rs.Spec.Selector)}
		},
	}
}

// Scale is the /scale accessor of replicasets.
var Scale = resource.ScaleAccessor{
	Replicas: func(obj runtime.Object) (int32, int32, string) {
		rs := obj.(*appsv1.ReplicaSet)
		return *rs.Spec.Replicas, rs.Status.Replicas, workload.SelectorString(rs.Spec.Selector)
	},
	SetReplicas: func(obj runtime.Object, n int32) { obj.(*appsv1.ReplicaSet).Spec.Replicas = &n },
}
