package horizontalpodautoscaler

import (
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// DefaultV1 is upstream's autoscaling/v1 defaulting: minReplicas 1 (the
// default CPU target is set by the conversion, which sees the
// annotations).
func DefaultV1(hpa *autoscalingv1.HorizontalPodAutoscaler) {
	if hpa.Spec.MinReplicas == nil {
		one := int32(1)
		hpa.Spec.MinReplicas = &one
	}
}

// Default is upstream's autoscaling/v2 defaulting: minReplicas 1, a CPU
// utilization target of 80% when there is no metric, and a behavior's
// unset scaling rules filled from the scale-up and scale-down defaults.
func Default(hpa *autoscalingv2.HorizontalPodAutoscaler) {
	s := &hpa.Spec
	if s.MinReplicas == nil {
		one := int32(1)
		s.MinReplicas = &one
	}
	if len(s.Metrics) == 0 {
		s.Metrics = []autoscalingv2.MetricSpec{cpuUtilization(DefaultCPUUtilization)}
	}
	if b := s.Behavior; b != nil {
		b.ScaleUp = fillRules(b.ScaleUp, defaultScaleUp())
		b.ScaleDown = fillRules(b.ScaleDown, defaultScaleDown())
	}
}

// defaultScaleUp: no stabilization, the larger of 4 pods or 100% per 15 s.
func defaultScaleUp() *autoscalingv2.HPAScalingRules {
	window, max := int32(0), autoscalingv2.MaxChangePolicySelect
	return &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &window, SelectPolicy: &max,
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		}}
}

// defaultScaleDown: 100% per 15 s; the window is left to
// kube-controller-manager's flag.
func defaultScaleDown() *autoscalingv2.HPAScalingRules {
	max := autoscalingv2.MaxChangePolicySelect
	return &autoscalingv2.HPAScalingRules{SelectPolicy: &max,
		Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}}}
}

// fillRules returns def with from's set fields.
func fillRules(from, def *autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	if from == nil {
		return def
	}
	if from.SelectPolicy != nil {
		def.SelectPolicy = from.SelectPolicy
	}
	if from.StabilizationWindowSeconds != nil {
		def.StabilizationWindowSeconds = from.StabilizationWindowSeconds
	}
	if from.Policies != nil {
		def.Policies = from.Policies
	}
	if from.Tolerance != nil {
		def.Tolerance = from.Tolerance
	}
	return def
}
