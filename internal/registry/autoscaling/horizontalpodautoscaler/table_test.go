package horizontalpodautoscaler

import (
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestFormatMetrics(t *testing.T) {
	q := func(s string) *resource.Quantity { v := resource.MustParse(s); return &v }
	i := func(v int32) *int32 { return &v }
	cpu := autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: "cpu",
		Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: i(80)}}}
	mem := autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: "memory",
		Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: q("500Mi")}}}
	pods := autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
		Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: q("1k")}}}
	ext := autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
		Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: q("30")}}}
	obj := autoscalingv2.MetricSpec{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricSource{
		Target: autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: q("10k")}}}
	cres := autoscalingv2.MetricSpec{Type: autoscalingv2.ContainerResourceMetricSourceType, ContainerResource: &autoscalingv2.ContainerResourceMetricSource{
		Name: "cpu", Container: "app", Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType}}}
	cpuNow := autoscalingv2.MetricStatus{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{Name: "cpu",
		Current: autoscalingv2.MetricValueStatus{AverageUtilization: i(42)}}}
	for _, tc := range []struct {
		name     string
		specs    []autoscalingv2.MetricSpec
		statuses []autoscalingv2.MetricStatus
		want     string
	}{
		{"none", nil, nil, "<none>"},
		{"cpu without status", []autoscalingv2.MetricSpec{cpu}, nil, "cpu: <unknown>/80%"},
		{"cpu with status", []autoscalingv2.MetricSpec{cpu}, []autoscalingv2.MetricStatus{cpuNow}, "cpu: 42%/80%"},
		{"value and pods", []autoscalingv2.MetricSpec{mem, pods}, nil, "memory: <unknown>/500Mi, <unknown>/1k"},
		{"more than two", []autoscalingv2.MetricSpec{ext, obj, cres, cpu}, nil, "<unknown>/30 (avg), <unknown>/10k + 2 more..."},
		{"container resource without target", []autoscalingv2.MetricSpec{cres}, nil, "cpu: <unknown>/<auto>"},
		{"unknown type", []autoscalingv2.MetricSpec{{Type: "Magic"}}, nil, "<unknown type>"},
	} {
		if got := FormatMetrics(tc.specs, tc.statuses); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
