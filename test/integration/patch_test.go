package integration

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
)

func TestPatchTypes(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	svcs := c.CoreV1().Services(ns)
	get(svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}, metav1.CreateOptions{}))(t)

	// Strategic merge: ports merge by port number, so a new port is added.
	s := get(svcs.Patch(ctx, "p", types.StrategicMergePatchType,
		[]byte(`{"spec":{"ports":[{"name":"https","port":443}]}}`), metav1.PatchOptions{}))(t)
	if len(s.Spec.Ports) != 2 || s.Spec.Ports[0].TargetPort.IntVal != 443 || s.Spec.Ports[1].Port != 80 {
		t.Fatalf("strategic merge: ports %+v (want 2, the new one defaulted)", s.Spec.Ports)
	}
	// JSON merge patch replaces lists.
	s = get(svcs.Patch(ctx, "p", types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"a":"b"}},"spec":{"ports":[{"name":"only","port":8080}]}}`), metav1.PatchOptions{}))(t)
	if len(s.Spec.Ports) != 1 || s.Labels["a"] != "b" {
		t.Fatalf("merge patch: %+v %v", s.Spec.Ports, s.Labels)
	}
	// JSON patch with a failing test op is refused.
	_, err := svcs.Patch(ctx, "p", types.JSONPatchType,
		[]byte(`[{"op":"test","path":"/metadata/labels/a","value":"nope"}]`), metav1.PatchOptions{})
	if !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) {
		t.Fatalf("json patch test op: %v", err)
	}
	s = get(svcs.Patch(ctx, "p", types.JSONPatchType,
		[]byte(`[{"op":"replace","path":"/metadata/labels/a","value":"c"}]`), metav1.PatchOptions{}))(t)
	if s.Labels["a"] != "c" {
		t.Fatalf("json patch: %v", s.Labels)
	}
}

func TestServerSideApplyConflict(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	cms := c.CoreV1().ConfigMaps(ns)
	a := corev1ac.ConfigMap("ssa", ns).WithData(map[string]string{"k": "one"})
	get(cms.Apply(ctx, a, metav1.ApplyOptions{FieldManager: "alice"}))(t)
	b := corev1ac.ConfigMap("ssa", ns).WithData(map[string]string{"k": "two"})
	_, err := cms.Apply(ctx, b, metav1.ApplyOptions{FieldManager: "bob"})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `conflict with "alice"`) {
		t.Fatalf("want apply conflict with alice, got %v", err)
	}
	cm := get(cms.Apply(ctx, b, metav1.ApplyOptions{FieldManager: "bob", Force: true}))(t)
	if cm.Data["k"] != "two" {
		t.Fatalf("forced apply: %v", cm.Data)
	}
	managers := map[string]bool{}
	for _, mf := range cm.ManagedFields {
		managers[mf.Manager] = true
	}
	if !managers["bob"] {
		t.Fatalf("managedFields lack bob: %+v", cm.ManagedFields)
	}
}
