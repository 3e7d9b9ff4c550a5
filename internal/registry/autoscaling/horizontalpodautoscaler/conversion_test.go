package horizontalpodautoscaler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A v2 object read as v1 and written back is the same object (its CPU
// utilization metric last), and the v1 form carries the rest in the
// annotations; upstream's equality is test/drift's.
func TestV1RoundTrip(t *testing.T) {
	avg := resource.MustParse("500Mi")
	pct, window := int32(60), int32(300)
	in := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: map[string]string{"keep": "yes", ConditionsAnnotation: "stale"}},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MaxReplicas:    5,
			Metrics: []autoscalingv2.MetricSpec{
				{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: "memory",
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &avg}}},
				cpuUtilization(pct),
			},
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &window}},
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: "AbleToScale", Status: "True"}}},
	}
	var v1 autoscalingv1.HorizontalPodAutoscaler
	if err := ToV1(in, &v1); err != nil {
		t.Fatal(err)
	}
	if v1.Spec.TargetCPUUtilizationPercentage == nil || *v1.Spec.TargetCPUUtilizationPercentage != pct {
		t.Errorf("targetCPUUtilizationPercentage %v", v1.Spec.TargetCPUUtilizationPercentage)
	}
	for _, a := range []string{MetricSpecsAnnotation, BehaviorSpecsAnnotation, ConditionsAnnotation} {
		if v1.Annotations[a] == "" || v1.Annotations[a] == "stale" {
			t.Errorf("annotation %s: %q", a, v1.Annotations[a])
		}
	}
	if in.Annotations[ConditionsAnnotation] != "stale" {
		t.Errorf("conversion changed its input's annotations: %v", in.Annotations)
	}
	var back autoscalingv2.HorizontalPodAutoscaler
	if err := FromV1(&v1, &back); err != nil {
		t.Fatal(err)
	}
	want := in.DeepCopy()
	want.Annotations = map[string]string{"keep": "yes"}
	if d := cmp.Diff(want, &back); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
}

// A v1 object without a CPU target and without metric annotations gets
// upstream's implicit 80% CPU target.
func TestFromV1DefaultsCPU(t *testing.T) {
	var out autoscalingv2.HorizontalPodAutoscaler
	if err := FromV1(&autoscalingv1.HorizontalPodAutoscaler{}, &out); err != nil {
		t.Fatal(err)
	}
	if m := out.Spec.Metrics; len(m) != 1 || *m[0].Resource.Target.AverageUtilization != DefaultCPUUtilization {
		t.Errorf("metrics %+v", m)
	}
}
