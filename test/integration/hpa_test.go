package integration

import (
	"strings"
	"testing"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/svcplane/svcplane/internal/testutil"
)

// TestHorizontalPodAutoscalerVersions: one object, read and written as
// autoscaling/v1 and v2 (v2 preferred): v1's CPU target is v2's metric,
// what only v2 can say survives a v1 update in the round-trip
// annotations, /status changes only status, and bad specs are refused
// with upstream's field paths.
func TestHorizontalPodAutoscalerVersions(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)

	group := get(c.Discovery().ServerGroups())(t)
	for _, g := range group.Groups {
		if g.Name == "autoscaling" && g.PreferredVersion.Version != "v2" {
			t.Errorf("autoscaling's preferred version is %s, want v2", g.PreferredVersion.Version)
		}
	}

	v1 := c.AutoscalingV1().HorizontalPodAutoscalers(ns)
	v2 := c.AutoscalingV2().HorizontalPodAutoscalers(ns)
	ref := autoscalingv1.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}
	get(v1.Create(ctx, &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "plain"},
		Spec: autoscalingv1.HorizontalPodAutoscalerSpec{ScaleTargetRef: ref, MaxReplicas: 4}}, metav1.CreateOptions{}))(t)
	plain := get(v2.Get(ctx, "plain", metav1.GetOptions{}))(t)
	if m := plain.Spec.Metrics; *plain.Spec.MinReplicas != 1 || len(m) != 1 || m[0].Resource == nil ||
		m[0].Resource.Name != "cpu" || *m[0].Resource.Target.AverageUtilization != 80 {
		t.Errorf("v1 without target read as v2: minReplicas %v, metrics %+v", plain.Spec.MinReplicas, m)
	}

	avg := resource.MustParse("500Mi")
	window := int32(300)
	full := get(v2.Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "full"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
			MaxReplicas:    10,
			Metrics: []autoscalingv2.MetricSpec{
				{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: "memory",
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &avg}}},
				{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: "cpu",
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](50)}}},
			},
			Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &window}},
		}}, metav1.CreateOptions{}))(t)
	if up := full.Spec.Behavior.ScaleUp; up == nil || len(up.Policies) != 2 || len(full.Spec.Behavior.ScaleDown.Policies) != 1 {
		t.Errorf("behavior not defaulted: %+v", full.Spec.Behavior)
	}

	// Through v1: the CPU target, the rest in annotations; an update
	// through v1 keeps them.
	asV1 := get(v1.Get(ctx, "full", metav1.GetOptions{}))(t)
	if p := asV1.Spec.TargetCPUUtilizationPercentage; p == nil || *p != 50 {
		t.Errorf("v1 targetCPUUtilizationPercentage %v, want 50", p)
	}
	for _, a := range []string{"autoscaling.alpha.kubernetes.io/metrics", "autoscaling.alpha.kubernetes.io/behavior"} {
		if _, ok := asV1.Annotations[a]; !ok {
			t.Errorf("v1 object lacks annotation %s: %v", a, asV1.Annotations)
		}
	}
	asV1.Spec.MaxReplicas = 12
	get(v1.Update(ctx, asV1, metav1.UpdateOptions{}))(t)
	back := get(v2.Get(ctx, "full", metav1.GetOptions{}))(t)
	if back.Spec.MaxReplicas != 12 || len(back.Spec.Metrics) != 2 || back.Spec.Metrics[0].Resource.Name != "memory" ||
		back.Spec.Behavior == nil || *back.Spec.Behavior.ScaleDown.StabilizationWindowSeconds != 300 {
		t.Errorf("v1 update lost v2 fields: %+v", back.Spec)
	}
	if len(back.Annotations) != 0 {
		t.Errorf("round-trip annotations stored: %v", back.Annotations)
	}

	// /status changes status only; the main resource never changes it.
	back.Status = autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: 3, DesiredReplicas: 4}
	back.Spec.MaxReplicas = 99
	st := get(v2.UpdateStatus(ctx, back, metav1.UpdateOptions{}))(t)
	if st.Status.CurrentReplicas != 3 || st.Spec.MaxReplicas != 12 {
		t.Errorf("status update: status %+v, maxReplicas %d", st.Status, st.Spec.MaxReplicas)
	}
	st.Status.CurrentReplicas = 7
	if u := get(v2.Update(ctx, st, metav1.UpdateOptions{}))(t); u.Status.CurrentReplicas != 3 {
		t.Errorf("spec update changed status: %+v", u.Status)
	}
	if s := get(v1.Get(ctx, "full", metav1.GetOptions{}))(t); s.Status.CurrentReplicas != 3 {
		t.Errorf("v1 status %+v", s.Status)
	}

	_, err := v1.Create(ctx, &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "bad"},
		Spec: autoscalingv1.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{Kind: "Deployment", Name: "web"},
			MinReplicas: ptr.To[int32](0), MaxReplicas: 3, TargetCPUUtilizationPercentage: ptr.To[int32](0)}}, metav1.CreateOptions{})
	for _, want := range []string{
		"spec.minReplicas: Invalid value: 0: must be greater than or equal to 1",
		`spec.scaleTargetRef.apiVersion: Invalid value: "": apiVersion must specify API group`,
		"spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0",
	} {
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
			t.Errorf("bad v1 create: want %q in %v", want, err)
		}
	}
}

// TestHorizontalPodAutoscalerKubectl: `kubectl autoscale` of kubectl
// 1.27 (autoscaling/v1) and of the newest kubectl beside it (1.33:
// autoscaling/v2), and `kubectl get hpa` with kube-apiserver's columns.
func TestHorizontalPodAutoscalerKubectl(t *testing.T) {
	skipShort(t)
	ns := newNamespace(t, server.Client)
	for _, name := range []string{"kubectl.1.27", "kubectl", "kubectl.1.33"} {
		k := kubectlBinary(t, name)
		target := strings.ReplaceAll("web-"+name, ".", "-")
		run := func(args ...string) string {
			t.Helper()
			out, errOut, code := kubectl(t, k, server.Kubeconfig, nil, "", append([]string{"-n", ns}, args...)...)
			if code != 0 {
				t.Fatalf("%s %s: exit %d\n%s%s", name, strings.Join(args, " "), code, out, errOut)
			}
			return out
		}
		run("create", "deployment", target, "--image=nginx")
		run("autoscale", "deployment", target, "--min=2", "--max=5", "--cpu-percent=70")
		out := run("get", "hpa", target)
		for _, want := range []string{"REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE",
			"Deployment/" + target, "cpu: <unknown>/70%", " 2 ", " 5 "} {
			if !strings.Contains(out, want) {
				t.Errorf("%s get hpa: no %q in\n%s", name, want, out)
			}
		}
	}
	out, errOut, code := kubectl(t, kubectlBinary(t, "kubectl"), server.Kubeconfig, nil, "", "-n", ns,
		"get", "horizontalpodautoscalers.v1.autoscaling", "-o", "jsonpath={.items[*].spec.targetCPUUtilizationPercentage}")
	if code != 0 || strings.TrimSpace(out) != "70 70 70" {
		t.Errorf("get as v1: %q %s", out, errOut)
	}
}

// TestHorizontalPodAutoscalerCollected: the garbage collector deletes an
// HPA whose owner is gone, and a deleted namespace is emptied of HPAs.
func TestHorizontalPodAutoscalerCollected(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	hpa := func(name string, owners ...metav1.OwnerReference) *autoscalingv2.HorizontalPodAutoscaler {
		return &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: name, OwnerReferences: owners},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 3,
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}}}
	}
	owner := get(c.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{}))(t)
	hpas := c.AutoscalingV2().HorizontalPodAutoscalers(ns)
	get(hpas.Create(ctx, hpa("owned", metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID}), metav1.CreateOptions{}))(t)
	get(hpas.Create(ctx, hpa("free"), metav1.CreateOptions{}))(t)
	noErr(t, c.CoreV1().ConfigMaps(ns).Delete(ctx, "owner", metav1.DeleteOptions{}))
	testutil.Eventually(t, 30*time.Second, "the owned HPA collected", func() bool {
		_, err := hpas.Get(ctx, "owned", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	noErr(t, c.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}))
	testutil.Eventually(t, 60*time.Second, "the namespace emptied of HPAs and gone", func() bool {
		_, err := c.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	if n := len(get(hpas.List(ctx, metav1.ListOptions{}))(t).Items); n != 0 {
		t.Errorf("%d HPAs left in the deleted namespace", n)
	}
}
