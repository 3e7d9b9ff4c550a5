package replicationcontroller

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func int32p(n int32) *int32 { return &n }

func TestDefault(t *testing.T) {
	tmpl := func(l map[string]string) *corev1.PodTemplateSpec {
		return &corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: l}}
	}
	app := map[string]string{"app": "a"}
	own := map[string]string{"own": "x"}
	for name, tc := range map[string]struct {
		in               corev1.ReplicationController
		selector, labels map[string]string
		replicas         int32
	}{
		"from template":     {corev1.ReplicationController{Spec: corev1.ReplicationControllerSpec{Template: tmpl(app)}}, app, app, 1},
		"own selector kept": {corev1.ReplicationController{Spec: corev1.ReplicationControllerSpec{Template: tmpl(app), Selector: own}}, own, app, 1},
		"own labels kept": {corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Labels: own},
			Spec: corev1.ReplicationControllerSpec{Template: tmpl(app), Replicas: int32p(0)}}, app, own, 0},
		"no template": {corev1.ReplicationController{}, nil, nil, 1},
	} {
		t.Run(name, func(t *testing.T) {
			rc := tc.in.DeepCopy()
			Default(rc)
			if !reflect.DeepEqual(rc.Spec.Selector, tc.selector) || !reflect.DeepEqual(rc.Labels, tc.labels) || *rc.Spec.Replicas != tc.replicas {
				t.Fatalf("selector %v labels %v replicas %d", rc.Spec.Selector, rc.Labels, *rc.Spec.Replicas)
			}
			if rc.Spec.Template != nil && rc.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways {
				t.Fatal("pod template defaults not applied")
			}
		})
	}
}

func TestValidateStatus(t *testing.T) {
	for name, tc := range map[string]struct {
		s    corev1.ReplicationControllerStatus
		want string
	}{
		"ok":                {corev1.ReplicationControllerStatus{Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 1}, ""},
		"negative":          {corev1.ReplicationControllerStatus{Replicas: -1}, "status.replicas: Invalid value: -1: must be greater than or equal to 0"},
		"ready > replicas":  {corev1.ReplicationControllerStatus{Replicas: 1, ReadyReplicas: 2, AvailableReplicas: 1}, "status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas"},
		"available > ready": {corev1.ReplicationControllerStatus{Replicas: 2, ReadyReplicas: 1, AvailableReplicas: 2}, "status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas"},
	} {
		t.Run(name, func(t *testing.T) {
			errs := ValidateStatus(&tc.s, field.NewPath("status"))
			if got := errs.ToAggregate(); (tc.want == "" && got != nil) || (tc.want != "" && (got == nil || !strings.Contains(got.Error(), tc.want))) {
				t.Fatalf("got %v, want %q", got, tc.want)
			}
		})
	}
}

func TestRowAndScale(t *testing.T) {
	rc := &corev1.ReplicationController{
		Spec: corev1.ReplicationControllerSpec{Replicas: int32p(3), Selector: map[string]string{"b": "2", "a": "1"},
			Template: &corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "x", Image: "i1"}, {Name: "y", Image: "i2"}}}}},
		Status: corev1.ReplicationControllerStatus{Replicas: 2, ReadyReplicas: 1},
	}
	got := row(rc)
	want := []interface{}{int64(3), int64(2), int64(1), got[3], "x,y", "i1,i2", "a=1,b=2"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("row %v, want %v", got, want)
	}
	spec, status, sel := Scale.Replicas(rc)
	if spec != 3 || status != 2 || sel != "a=1,b=2" {
		t.Fatalf("scale %d %d %q", spec, status, sel)
	}
}
