package horizontalpodautoscaler

import (
	"encoding/json"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
)

// The annotations in which autoscaling/v1 keeps what only v2 can say.
const (
	MetricSpecsAnnotation        = "autoscaling.alpha.kubernetes.io/metrics"
	MetricStatusesAnnotation     = "autoscaling.alpha.kubernetes.io/current-metrics"
	ConditionsAnnotation         = "autoscaling.alpha.kubernetes.io/conditions"
	BehaviorSpecsAnnotation      = "autoscaling.alpha.kubernetes.io/behavior"
	ToleranceScaleDownAnnotation = "autoscaling.alpha.kubernetes.io/scale-down-tolerance"
	ToleranceScaleUpAnnotation   = "autoscaling.alpha.kubernetes.io/scale-up-tolerance"
)

// DefaultCPUUtilization is the target of the CPU metric an autoscaler
// without metrics gets (v2 defaulting, v1 conversion).
const DefaultCPUUtilization = 80

var roundTripAnnotations = []string{MetricSpecsAnnotation, BehaviorSpecsAnnotation, ToleranceScaleDownAnnotation,
	ToleranceScaleUpAnnotation, MetricStatusesAnnotation, ConditionsAnnotation}

// dropRoundTripAnnotations returns in without the round-trip annotations
// (a copy when it had any) and whether it copied, as upstream's
// DropRoundTripHorizontalPodAutoscalerAnnotations.
func dropRoundTripAnnotations(in map[string]string) (map[string]string, bool) {
	found := false
	for _, k := range roundTripAnnotations {
		if _, ok := in[k]; ok {
			found = true
		}
	}
	if !found {
		return in, false
	}
	out := copyMap(in)
	for _, k := range roundTripAnnotations {
		delete(out, k)
	}
	return out, true
}

func copyMap(in map[string]string) map[string]string {
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}

// AddConversions registers the autoscaling/v1 defaults and the v1 ⇄ v2
// conversions (object and list) in scheme.
func AddConversions(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&autoscalingv1.HorizontalPodAutoscaler{}, func(obj interface{}) {
		DefaultV1(obj.(*autoscalingv1.HorizontalPodAutoscaler))
	})
	scheme.AddTypeDefaultingFunc(&autoscalingv1.HorizontalPodAutoscalerList{}, func(obj interface{}) {
		l := obj.(*autoscalingv1.HorizontalPodAutoscalerList)
		for i := range l.Items {
			DefaultV1(&l.Items[i])
		}
	})
	funcs := []struct {
		a, b interface{}
		fn   conversion.ConversionFunc
	}{
		{(*autoscalingv1.HorizontalPodAutoscaler)(nil), (*autoscalingv2.HorizontalPodAutoscaler)(nil), func(a, b interface{}, _ conversion.Scope) error {
			return FromV1(a.(*autoscalingv1.HorizontalPodAutoscaler), b.(*autoscalingv2.HorizontalPodAutoscaler))
		}},
		{(*autoscalingv2.HorizontalPodAutoscaler)(nil), (*autoscalingv1.HorizontalPodAutoscaler)(nil), func(a, b interface{}, _ conversion.Scope) error {
			return ToV1(a.(*autoscalingv2.HorizontalPodAutoscaler), b.(*autoscalingv1.HorizontalPodAutoscaler))
		}},
		{(*autoscalingv1.HorizontalPodAutoscalerList)(nil), (*autoscalingv2.HorizontalPodAutoscalerList)(nil), func(a, b interface{}, _ conversion.Scope) error {
			in, out := a.(*autoscalingv1.HorizontalPodAutoscalerList), b.(*autoscalingv2.HorizontalPodAutoscalerList)
			out.ListMeta = in.ListMeta
			out.Items = nil
			if in.Items != nil {
				out.Items = make([]autoscalingv2.HorizontalPodAutoscaler, len(in.Items))
			}
			for i := range in.Items {
				if err := FromV1(&in.Items[i], &out.Items[i]); err != nil {
					return err
				}
			}
			return nil
		}},
		{(*autoscalingv2.HorizontalPodAutoscalerList)(nil), (*autoscalingv1.HorizontalPodAutoscalerList)(nil), func(a, b interface{}, _ conversion.Scope) error {
			in, out := a.(*autoscalingv2.HorizontalPodAutoscalerList), b.(*autoscalingv1.HorizontalPodAutoscalerList)
			out.ListMeta = in.ListMeta
			out.Items = nil
			if in.Items != nil {
				out.Items = make([]autoscalingv1.HorizontalPodAutoscaler, len(in.Items))
			}
			for i := range in.Items {
				if err := ToV1(&in.Items[i], &out.Items[i]); err != nil {
					return err
				}
			}
			return nil
		}},
	}
	for _, f := range funcs {
		if err := scheme.AddConversionFunc(f.a, f.b, f.fn); err != nil {
			return err
		}
	}
	return nil
}

// isCPUUtilization is the metric v1 says with targetCPUUtilizationPercentage.
func isCPUUtilization(m *autoscalingv2.MetricSpec) bool {
	return m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil &&
		m.Resource.Name == corev1.ResourceCPU && m.Resource.Target.AverageUtilization != nil
}

// ToV1 is upstream's v2 → internal → v1 conversion: the first CPU
// utilization metric becomes targetCPUUtilizationPercentage, the CPU
// utilization status currentCPUUtilizationPercentage; the other metrics,
// all metric statuses, the behavior and the conditions go to annotations.
func ToV1(in *autoscalingv2.HorizontalPodAutoscaler, out *autoscalingv1.HorizontalPodAutoscaler) error {
	out.TypeMeta = in.TypeMeta
	out.ObjectMeta = in.ObjectMeta
	// Those of another version never survive; the ones set below are
	// written to a copy.
	out.Annotations, _ = dropRoundTripAnnotations(out.Annotations)
	copied := false
	set := func(key string, v interface{}) error {
		enc, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if !copied {
			copied = true
			out.Annotations = copyMap(out.Annotations)
		}
		out.Annotations[key] = string(enc)
		return nil
	}

	s := &in.Spec
	out.Spec = autoscalingv1.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{Kind: s.ScaleTargetRef.Kind, Name: s.ScaleTargetRef.Name, APIVersion: s.ScaleTargetRef.APIVersion},
		MinReplicas:    s.MinReplicas, MaxReplicas: s.MaxReplicas,
	}
	other := make([]autoscalingv1.MetricSpec, 0, len(s.Metrics))
	for i := range s.Metrics {
		m := &s.Metrics[i]
		if isCPUUtilization(m) {
			if out.Spec.TargetCPUUtilizationPercentage == nil {
				v := *m.Resource.Target.AverageUtilization
				out.Spec.TargetCPUUtilizationPercentage = &v
			}
			continue
		}
		other = append(other, metricSpecToV1(m))
	}

	st := &in.Status
	out.Status = autoscalingv1.HorizontalPodAutoscalerStatus{
		ObservedGeneration: st.ObservedGeneration, LastScaleTime: st.LastScaleTime,
		CurrentReplicas: st.CurrentReplicas, DesiredReplicas: st.DesiredReplicas,
	}
	statuses := make([]autoscalingv1.MetricStatus, len(st.CurrentMetrics))
	for i := range st.CurrentMetrics {
		m := &st.CurrentMetrics[i]
		statuses[i] = metricStatusToV1(m)
		if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Current.AverageUtilization != nil {
			v := *m.Resource.Current.AverageUtilization
			out.Status.CurrentCPUUtilizationPercentage = &v
		}
	}
	conditions := make([]autoscalingv1.HorizontalPodAutoscalerCondition, len(st.Conditions))
	for i, c := range st.Conditions {
		conditions[i] = autoscalingv1.HorizontalPodAutoscalerCondition{Type: autoscalingv1.HorizontalPodAutoscalerConditionType(c.Type),
			Status: c.Status, LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message}
	}

	if len(other) > 0 {
		if err := set(MetricSpecsAnnotation, other); err != nil {
			return err
		}
	}
	if len(st.CurrentMetrics) > 0 {
		if err := set(MetricStatusesAnnotation, statuses); err != nil {
			return err
		}
	}
	if s.Behavior != nil {
		if err := set(BehaviorSpecsAnnotation, behaviorToAnnotation(s.Behavior)); err != nil {
			return err
		}
	}
	if len(st.Conditions) > 0 {
		if err := set(ConditionsAnnotation, conditions); err != nil {
			return err
		}
	}
	return nil
}

// FromV1 is upstream's v1 → internal (→ v2) conversion: the annotations'
// metrics, behavior, metric statuses and conditions come back (an
// annotation that does not decode is ignored), a v1 object without any
// metric gets the default CPU utilization target, and the round-trip
// annotations are dropped.
func FromV1(in *autoscalingv1.HorizontalPodAutoscaler, out *autoscalingv2.HorizontalPodAutoscaler) error {
	out.TypeMeta = in.TypeMeta
	out.ObjectMeta = in.ObjectMeta
	s := &in.Spec
	out.Spec = autoscalingv2.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: s.ScaleTargetRef.Kind, Name: s.ScaleTargetRef.Name, APIVersion: s.ScaleTargetRef.APIVersion},
		MinReplicas:    s.MinReplicas, MaxReplicas: s.MaxReplicas,
	}
	if s.TargetCPUUtilizationPercentage != nil {
		out.Spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilization(*s.TargetCPUUtilizationPercentage)}
	}
	st := &in.Status
	out.Status = autoscalingv2.HorizontalPodAutoscalerStatus{
		ObservedGeneration: st.ObservedGeneration, LastScaleTime: st.LastScaleTime,
		CurrentReplicas: st.CurrentReplicas, DesiredReplicas: st.DesiredReplicas,
	}
	if st.CurrentCPUUtilizationPercentage != nil {
		v := *st.CurrentCPUUtilizationPercentage
		out.Status.CurrentMetrics = []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: &v}}}}
	}

	if enc, ok := out.Annotations[MetricSpecsAnnotation]; ok {
		var other []autoscalingv1.MetricSpec
		if err := json.Unmarshal([]byte(enc), &other); err == nil {
			metrics := make([]autoscalingv2.MetricSpec, len(other)+len(out.Spec.Metrics))
			for i := range other {
				metrics[i] = metricSpecFromV1(&other[i])
			}
			if out.Spec.Metrics != nil {
				metrics[len(other)] = out.Spec.Metrics[0]
			}
			out.Spec.Metrics = metrics
		}
	}
	if enc, ok := out.Annotations[BehaviorSpecsAnnotation]; ok {
		var b behaviorAnnotation
		if err := json.Unmarshal([]byte(enc), &b); err == nil && b != (behaviorAnnotation{}) {
			out.Spec.Behavior = b.toV2()
		}
	}
	if enc, ok := out.Annotations[MetricStatusesAnnotation]; ok {
		var statuses []autoscalingv1.MetricStatus
		if err := json.Unmarshal([]byte(enc), &statuses); err == nil {
			out.Status.CurrentMetrics = make([]autoscalingv2.MetricStatus, len(statuses))
			for i := range statuses {
				out.Status.CurrentMetrics[i] = metricStatusFromV1(&statuses[i])
			}
		}
	}
	if len(out.Spec.Metrics) == 0 {
		out.Spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilization(DefaultCPUUtilization)}
	}
	if enc, ok := out.Annotations[ConditionsAnnotation]; ok {
		var conditions []autoscalingv1.HorizontalPodAutoscalerCondition
		if err := json.Unmarshal([]byte(enc), &conditions); err == nil {
			out.Status.Conditions = make([]autoscalingv2.HorizontalPodAutoscalerCondition, len(conditions))
			for i, c := range conditions {
				out.Status.Conditions[i] = autoscalingv2.HorizontalPodAutoscalerCondition{Type: autoscalingv2.HorizontalPodAutoscalerConditionType(c.Type),
					Status: c.Status, LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message}
			}
		}
	}
	out.Annotations, _ = dropRoundTripAnnotations(out.Annotations)
	return nil
}

func cpuUtilization(percent int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &percent}}}
}

// behaviorAnnotation is the form of the behavior annotation: upstream
// writes its internal type, whose JSON keys are the Go field names.
type behaviorAnnotation struct {
	ScaleUp   *rulesAnnotation
	ScaleDown *rulesAnnotation
}

type rulesAnnotation struct {
	StabilizationWindowSeconds *int32
	SelectPolicy               *autoscalingv2.ScalingPolicySelect
	Policies                   []policyAnnotation
	Tolerance                  *resource.Quantity
}

type policyAnnotation struct {
	Type          autoscalingv2.HPAScalingPolicyType
	Value         int32
	PeriodSeconds int32
}

func behaviorToAnnotation(b *autoscalingv2.HorizontalPodAutoscalerBehavior) behaviorAnnotation {
	rules := func(r *autoscalingv2.HPAScalingRules) *rulesAnnotation {
		if r == nil {
			return nil
		}
		out := &rulesAnnotation{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
		if r.Policies != nil {
			out.Policies = make([]policyAnnotation, len(r.Policies))
			for i, p := range r.Policies {
				out.Policies[i] = policyAnnotation(p)
			}
		}
		return out
	}
	return behaviorAnnotation{ScaleUp: rules(b.ScaleUp), ScaleDown: rules(b.ScaleDown)}
}

func (b behaviorAnnotation) toV2() *autoscalingv2.HorizontalPodAutoscalerBehavior {
	rules := func(r *rulesAnnotation) *autoscalingv2.HPAScalingRules {
		if r == nil {
			return nil
		}
		out := &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
		if r.Policies != nil {
			out.Policies = make([]autoscalingv2.HPAScalingPolicy, len(r.Policies))
			for i, p := range r.Policies {
				out.Policies[i] = autoscalingv2.HPAScalingPolicy(p)
			}
		}
		return out
	}
	return &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: rules(b.ScaleUp), ScaleDown: rules(b.ScaleDown)}
}
