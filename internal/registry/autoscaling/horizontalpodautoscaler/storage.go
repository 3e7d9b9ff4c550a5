package horizontalpodautoscaler

import (
	"context"
	"fmt"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the horizontalpodautoscalers resource: autoscaling/v2,
// also served as autoscaling/v1.
func Definition() *resource.Definition {
	spec, status := autoscalingv2.HorizontalPodAutoscalerSpec{}.SwaggerDoc(), autoscalingv2.HorizontalPodAutoscalerStatus{}.SwaggerDoc()
	return &resource.Definition{
		GroupVersion: autoscalingv2.SchemeGroupVersion, Kind: "HorizontalPodAutoscaler",
		Resource: "horizontalpodautoscalers", Singular: "horizontalpodautoscaler", Namespaced: true,
		ShortNames: []string{"hpa"}, Categories: []string{"all"},
		AlsoServedAt: []schema.GroupVersion{autoscalingv1.SchemeGroupVersion},
		New:          func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscaler{} },
		NewList:      func() runtime.Object { return &autoscalingv2.HorizontalPodAutoscalerList{} },
		Default:      func(obj runtime.Object) { Default(obj.(*autoscalingv2.HorizontalPodAutoscaler)) },
		Conversions:  AddConversions,
		// What upstream's decoder drops from a v2 object (our v2 requests
		// are not converted).
		PrepareForCreate: func(_ context.Context, obj runtime.Object) { dropAnnotations(obj) },
		PrepareForUpdate: func(_ context.Context, obj, _ runtime.Object) { dropAnnotations(obj) },
		Validate: func(_ context.Context, obj runtime.Object) field.ErrorList {
			return ValidateSpec(obj.(*autoscalingv2.HorizontalPodAutoscaler), nil)
		},
		// Upstream's ValidateHorizontalPodAutoscalerUpdate: the metadata's
		// transition and the spec.
		UpdateMeta: resource.UpdateMetaTransition,
		ValidateUpdate: func(_ context.Context, obj, old runtime.Object) field.ErrorList {
			return ValidateSpec(obj.(*autoscalingv2.HorizontalPodAutoscaler), old.(*autoscalingv2.HorizontalPodAutoscaler))
		},
		Status: &resource.StatusDefinition{
			PrepareForUpdate: func(_ context.Context, obj, _ runtime.Object) { dropAnnotations(obj) },
			ValidateUpdate: func(_ context.Context, obj, _ runtime.Object) field.ErrorList {
				return ValidateStatus(obj.(*autoscalingv2.HorizontalPodAutoscaler))
			},
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Reference", "string", 0, spec["scaleTargetRef"]),
			resource.Column("Targets", "string", 0, spec["metrics"]),
			resource.Column("MinPods", "string", 0, spec["minReplicas"]),
			resource.Column("MaxPods", "string", 0, spec["maxReplicas"]),
			resource.Column("Replicas", "string", 0, status["currentReplicas"]),
			resource.AgeColumn,
		},
		Row: func(obj runtime.Object) []interface{} {
			hpa := obj.(*autoscalingv2.HorizontalPodAutoscaler)
			minPods := "<unset>"
			if hpa.Spec.MinReplicas != nil {
				minPods = fmt.Sprint(*hpa.Spec.MinReplicas)
			}
			return []interface{}{hpa.Spec.ScaleTargetRef.Kind + "/" + hpa.Spec.ScaleTargetRef.Name,
				FormatMetrics(hpa.Spec.Metrics, hpa.Status.CurrentMetrics), minPods,
				int64(hpa.Spec.MaxReplicas), int64(hpa.Status.CurrentReplicas), resource.AgeOf(obj)}
		},
	}
}

func dropAnnotations(obj runtime.Object) {
	hpa := obj.(*autoscalingv2.HorizontalPodAutoscaler)
	hpa.Annotations, _ = dropRoundTripAnnotations(hpa.Annotations)
}

// FormatMetrics is kubectl's TARGETS cell as kube-apiserver prints it:
// "current/target" of the first two metrics, "+ N more..." after them.
func FormatMetrics(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	list := make([]string, 0, len(specs))
	for i := range specs {
		var st *autoscalingv2.MetricStatus
		if i < len(statuses) {
			st = &statuses[i]
		}
		list = append(list, formatMetric(&specs[i], st))
	}
	if len(list) > 2 {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:2], ", "), len(list)-2)
	}
	return strings.Join(list, ", ")
}
