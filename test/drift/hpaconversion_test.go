package drift

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/autoscaling"
	"sigs.k8s.io/yaml"
)

// hpaV1Cases are autoscaling/v1 HorizontalPodAutoscalers as clients send
// them (and as v2 objects come out converted: annotations with other
// metrics, behavior, statuses and conditions, some of them broken).
var hpaV1Cases = map[string]string{
	"minimal": `{metadata: {name: web}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, maxReplicas: 5}}`,
	"cpu target and status": `{metadata: {name: web}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, minReplicas: 2, maxReplicas: 5, targetCPUUtilizationPercentage: 60},
		status: {observedGeneration: 3, currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 75, lastScaleTime: "2026-01-01T00:00:00Z"}}`,
	"annotations of every kind": `{metadata: {name: web, annotations: {
		keep: "yes",
		autoscaling.alpha.kubernetes.io/metrics: '[{"type":"Object","object":{"target":{"kind":"Ingress","name":"main","apiVersion":"networking.k8s.io/v1"},"metricName":"rps","targetValue":"10k"}},{"type":"Object","object":{"target":{"kind":"Service","name":"s"},"metricName":"q","targetValue":"0","averageValue":"5"}},{"type":"Pods","pods":{"metricName":"pps","targetAverageValue":"1k"}},{"type":"External","external":{"metricName":"queue","targetAverageValue":"30"}},{"type":"External","external":{"metricName":"queue2","targetValue":"3","metricSelector":{"matchLabels":{"a":"b"}}}},{"type":"Resource","resource":{"name":"memory","targetAverageValue":"500Mi"}},{"type":"ContainerResource","containerResource":{"name":"cpu","container":"app","targetAverageUtilization":60}}]',
		autoscaling.alpha.kubernetes.io/behavior: '{"ScaleUp":{"StabilizationWindowSeconds":0,"SelectPolicy":"Max","Policies":[{"Type":"Pods","Value":4,"PeriodSeconds":15}],"Tolerance":"50m"},"ScaleDown":null}',
		autoscaling.alpha.kubernetes.io/current-metrics: '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":70,"currentAverageValue":"200m"}},{"type":"External","external":{"metricName":"queue","currentValue":"7","currentAverageValue":"2"}},{"type":"Object","object":{"target":{"kind":"Ingress","name":"main"},"metricName":"rps","currentValue":"9k"}},{"type":"Pods","pods":{"metricName":"pps","currentAverageValue":"900"}},{"type":"ContainerResource","containerResource":{"name":"cpu","container":"app","currentAverageUtilization":50,"currentAverageValue":"100m"}}]',
		autoscaling.alpha.kubernetes.io/conditions: '[{"type":"AbleToScale","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z","reason":"ReadyForNewScale","message":"ok"}]'}},
		spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, maxReplicas: 5, targetCPUUtilizationPercentage: 50}}`,
	"lower-case behavior keys and an empty behavior": `{metadata: {name: web, annotations: {autoscaling.alpha.kubernetes.io/behavior: '{"scaleDown":{"selectPolicy":"Min"}}', autoscaling.alpha.kubernetes.io/metrics: '[]'}}, spec: {scaleTargetRef: {kind: ReplicationController, name: web}, maxReplicas: 5}}`,
	"empty behavior annotation":                      `{metadata: {name: web, annotations: {autoscaling.alpha.kubernetes.io/behavior: '{}', autoscaling.alpha.kubernetes.io/scale-up-tolerance: "1"}}, spec: {scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 5}}`,
	"broken annotations are ignored":                 `{metadata: {name: web, annotations: {autoscaling.alpha.kubernetes.io/metrics: 'nope', autoscaling.alpha.kubernetes.io/behavior: '[', autoscaling.alpha.kubernetes.io/current-metrics: '{}', autoscaling.alpha.kubernetes.io/conditions: '1'}}, spec: {scaleTargetRef: {kind: Deployment, name: web}, maxReplicas: 5, targetCPUUtilizationPercentage: 90}, status: {currentCPUUtilizationPercentage: 10}}`,
}

// hpaV2Cases are autoscaling/v2 objects read through autoscaling/v1. v2
// → v1 → v2 gives the object back when its one CPU utilization metric is
// last (those cases are named "lossless"); upstream moves it there and
// drops a second one.
var hpaV2Cases = map[string]string{
	"lossless: defaults only":   `{metadata: {name: web}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, maxReplicas: 5}}`,
	"two CPU metrics, not last": `{metadata: {name: web}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, maxReplicas: 5, metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}}, {type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}}, {type: Pods, pods: {metric: {name: pps}, target: {type: AverageValue, averageValue: 1k}}}]}}`,
	"lossless: every metric, behavior, status and conditions": `{metadata: {name: web, annotations: {keep: "yes", autoscaling.alpha.kubernetes.io/conditions: stale}}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, minReplicas: 2, maxReplicas: 10,
		metrics: [{type: Resource, resource: {name: memory, target: {type: AverageValue, averageValue: 500Mi}}},
			{type: Pods, pods: {metric: {name: pps}, target: {type: AverageValue, averageValue: 1k}}}, {type: Object, object: {describedObject: {apiVersion: networking.k8s.io/v1, kind: Ingress, name: main}, metric: {name: rps, selector: {matchLabels: {verb: GET}}}, target: {type: Value, value: 10k}}},
			{type: Object, object: {describedObject: {kind: Service, name: s}, metric: {name: q}, target: {type: AverageValue, averageValue: "5"}}},
			{type: External, external: {metric: {name: queue}, target: {type: AverageValue, averageValue: "30"}}}, {type: ContainerResource, containerResource: {name: cpu, container: app, target: {type: Utilization, averageUtilization: 60}}},
			{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}}],
		behavior: {scaleUp: {stabilizationWindowSeconds: 0, selectPolicy: Max, tolerance: 50m, policies: [{type: Pods, value: 4, periodSeconds: 15}]}, scaleDown: {policies: [{type: Percent, value: 10, periodSeconds: 60}]}}},
		status: {observedGeneration: 1, currentReplicas: 3, desiredReplicas: 4, lastScaleTime: "2026-01-01T00:00:00Z",
			currentMetrics: [{type: Resource, resource: {name: cpu, current: {averageUtilization: 70, averageValue: 200m}}}, {type: External, external: {metric: {name: queue}, current: {value: "7"}}}, {type: Pods, pods: {metric: {name: pps}, current: {averageValue: "900"}}},
				{type: Object, object: {describedObject: {kind: Ingress, name: main}, metric: {name: rps}, current: {value: 9k, averageValue: "3"}}}, {type: ContainerResource, containerResource: {name: cpu, container: app, current: {averageUtilization: 50, averageValue: 100m}}}],
			conditions: [{type: ScalingActive, status: "False", reason: FailedGetResourceMetric, message: "no metrics", lastTransitionTime: "2026-01-01T00:00:00Z"}]}}`,
	"lossless: memory only": `{metadata: {name: web}, spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, maxReplicas: 5, metrics: [{type: Resource, resource: {name: memory, target: {type: Utilization, averageUtilization: 60}}}]}}`,
}

// TestHPAConversionMatchesUpstream converts autoscaling/v1 objects
// (defaulted) to v2, and v2 objects (defaulted) to v1 and back, with
// kube-apiserver's scheme (through its internal type) and with svcplane's;
// the results must be equal, and v2 → v1 → v2 must give the v2 object
// again but for the round-trip annotations.
func TestHPAConversionMatchesUpstream(t *testing.T) {
	ours := newOurSide(t)
	for name, src := range hpaV1Cases {
		t.Run("v1 to v2/"+name, func(t *testing.T) {
			theirs := convertUpstream(t, decodeHPA(t, src, &autoscalingv1.HorizontalPodAutoscaler{}), autoscalingv2.SchemeGroupVersion.String())
			mine := convertOurs(t, ours.scheme, decodeHPA(t, src, &autoscalingv1.HorizontalPodAutoscaler{}), &autoscalingv2.HorizontalPodAutoscaler{})
			if d := cmp.Diff(theirs, mine); d != "" {
				t.Errorf("v1 → v2 differs (-upstream +svcplane):\n%s", d)
			}
		})
	}
	for name, src := range hpaV2Cases {
		t.Run("v2 to v1/"+name, func(t *testing.T) {
			theirs := convertUpstream(t, decodeHPA(t, src, &autoscalingv2.HorizontalPodAutoscaler{}), autoscalingv1.SchemeGroupVersion.String())
			mine := convertOurs(t, ours.scheme, decodeHPA(t, src, &autoscalingv2.HorizontalPodAutoscaler{}), &autoscalingv1.HorizontalPodAutoscaler{})
			if d := cmp.Diff(theirs, mine); d != "" {
				t.Errorf("v2 → v1 differs (-upstream +svcplane):\n%s", d)
			}
			v1 := decodeHPA(t, mine, &autoscalingv1.HorizontalPodAutoscaler{})
			back := convertOurs(t, ours.scheme, v1, &autoscalingv2.HorizontalPodAutoscaler{})
			theirsBack := convertUpstream(t, decodeHPA(t, theirs, &autoscalingv1.HorizontalPodAutoscaler{}), autoscalingv2.SchemeGroupVersion.String())
			if d := cmp.Diff(theirsBack, back); d != "" {
				t.Errorf("v2 → v1 → v2 differs (-upstream +svcplane):\n%s", d)
			}
			if !strings.HasPrefix(name, "lossless: ") {
				return
			}
			orig := decodeHPA(t, src, &autoscalingv2.HorizontalPodAutoscaler{}).(*autoscalingv2.HorizontalPodAutoscaler)
			delete(orig.Annotations, "autoscaling.alpha.kubernetes.io/conditions")
			if d := cmp.Diff(toJSON(t, orig), back); d != "" {
				t.Errorf("v2 → v1 → v2 is not the v2 object (-v2 +round trip):\n%s", d)
			}
		})
	}
}

// decodeHPA reads a YAML object and defaults it as the decoder does
// (upstream's and svcplane's defaults for a version are the same: the
// corpus checks v2's, this test v1's through the conversions).
func decodeHPA(t *testing.T, src string, into runtime.Object) runtime.Object {
	t.Helper()
	if err := yaml.Unmarshal([]byte(src), into); err != nil {
		t.Fatal(err)
	}
	legacyscheme.Scheme.Default(into)
	return into
}

func convertUpstream(t *testing.T, in runtime.Object, version string) string {
	t.Helper()
	var internal autoscaling.HorizontalPodAutoscaler
	if err := legacyscheme.Scheme.Convert(in, &internal, nil); err != nil {
		t.Fatal(err)
	}
	gv, err := schema.ParseGroupVersion(version)
	if err != nil {
		t.Fatal(err)
	}
	out, err := legacyscheme.Scheme.New(gv.WithKind("HorizontalPodAutoscaler"))
	if err != nil {
		t.Fatal(err)
	}
	if err := legacyscheme.Scheme.Convert(&internal, out, nil); err != nil {
		t.Fatal(err)
	}
	return toJSON(t, out)
}

func convertOurs(t *testing.T, scheme *runtime.Scheme, in, out runtime.Object) string {
	t.Helper()
	if err := scheme.Convert(in, out, nil); err != nil {
		t.Fatal(err)
	}
	return toJSON(t, out)
}

func toJSON(t *testing.T, obj interface{}) string {
	t.Helper()
	data, err := json.MarshalIndent(obj, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
