package horizontalpodautoscaler

import (
	"fmt"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// formatMetric is one metric of the TARGETS cell (st nil: no status
// yet), as upstream's formatHPAMetrics words it.
func formatMetric(spec *autoscalingv2.MetricSpec, st *autoscalingv2.MetricStatus) string {
	unknown := "<unknown>"
	switch spec.Type {
	case autoscalingv2.ExternalMetricSourceType:
		if spec.External.Target.AverageValue != nil {
			current := unknown
			if st != nil && st.External != nil && st.External.Current.AverageValue != nil {
				current = st.External.Current.AverageValue.String()
			}
			return fmt.Sprintf("%s/%s (avg)", current, spec.External.Target.AverageValue.String())
		}
		current := unknown
		if st != nil && st.External != nil {
			current = st.External.Current.Value.String()
		}
		return fmt.Sprintf("%s/%s", current, spec.External.Target.Value.String())
	case autoscalingv2.PodsMetricSourceType:
		current := unknown
		if st != nil && st.Pods != nil {
			current = st.Pods.Current.AverageValue.String()
		}
		return fmt.Sprintf("%s/%s", current, spec.Pods.Target.AverageValue.String())
	case autoscalingv2.ObjectMetricSourceType:
		if spec.Object.Target.AverageValue != nil {
			current := unknown
			if st != nil && st.Object != nil && st.Object.Current.AverageValue != nil {
				current = st.Object.Current.AverageValue.String()
			}
			return fmt.Sprintf("%s/%s (avg)", current, spec.Object.Target.AverageValue.String())
		}
		current := unknown
		if st != nil && st.Object != nil {
			current = st.Object.Current.Value.String()
		}
		return fmt.Sprintf("%s/%s", current, spec.Object.Target.Value.String())
	case autoscalingv2.ResourceMetricSourceType:
		r := spec.Resource
		if r.Target.AverageValue != nil {
			current := unknown
			if st != nil && st.Resource != nil {
				current = st.Resource.Current.AverageValue.String()
			}
			return fmt.Sprintf("%s: %s/%s", r.Name.String(), current, r.Target.AverageValue.String())
		}
		current := unknown
		if st != nil && st.Resource != nil && st.Resource.Current.AverageUtilization != nil {
			current = fmt.Sprintf("%d%%", *st.Resource.Current.AverageUtilization)
		}
		return fmt.Sprintf("%s: %s/%s", r.Name.String(), current, percent(r.Target.AverageUtilization))
	case autoscalingv2.ContainerResourceMetricSourceType:
		r := spec.ContainerResource
		if r.Target.AverageValue != nil {
			current := unknown
			if st != nil && st.ContainerResource != nil {
				current = st.ContainerResource.Current.AverageValue.String()
			}
			return fmt.Sprintf("%s: %s/%s", r.Name.String(), current, r.Target.AverageValue.String())
		}
		current := unknown
		if st != nil && st.ContainerResource != nil && st.ContainerResource.Current.AverageUtilization != nil {
			current = fmt.Sprintf("%d%%", *st.ContainerResource.Current.AverageUtilization)
		}
		return fmt.Sprintf("%s: %s/%s", r.Name.String(), current, percent(r.Target.AverageUtilization))
	}
	return "<unknown type>"
}

func percent(p *int32) string {
	if p == nil {
		return "<auto>"
	}
	return fmt.Sprintf("%d%%", *p)
}
