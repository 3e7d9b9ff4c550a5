package integration

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestServiceAccountAdmission: a pod created in a fresh namespace gets serviceAccountName default and the kube-api-access volume mounted
// read-only in each container; automountServiceAccountToken false on the
// pod or its ServiceAccount leaves it out; a pod naming a missing
// ServiceAccount is refused with upstream's message.
func TestServiceAccountAdmission(t *testing.T) {
	skipShort(t)
	c := server.Client
	ns := newNamespace(t, c)
	pods := c.CoreV1().Pods(ns)
	newPod := func(name string, mutate func(*corev1.Pod)) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "init", Image: "busybox"}},
			Containers:     []corev1.Container{{Name: "a", Image: "busybox"}, {Name: "b", Image: "busybox"}}}}
		mutate(p)
		return p
	}
	p := get(pods.Create(ctx, newPod("first", func(*corev1.Pod) {}), metav1.CreateOptions{}))(t)
	if p.Spec.ServiceAccountName != "default" {
		t.Errorf("serviceAccountName %q", p.Spec.ServiceAccountName)
	}
	if len(p.Spec.Volumes) != 1 || !strings.HasPrefix(p.Spec.Volumes[0].Name, "kube-api-access-") || len(p.Spec.Volumes[0].Name) != len("kube-api-access-")+5 {
		t.Fatalf("volumes %+v", p.Spec.Volumes)
	}
	v := p.Spec.Volumes[0]
	proj := v.Projected
	if proj == nil || len(proj.Sources) != 3 || ptr.Deref(proj.DefaultMode, 0) != 0o644 ||
		proj.Sources[0].ServiceAccountToken == nil || ptr.Deref(proj.Sources[0].ServiceAccountToken.ExpirationSeconds, 0) != 3607 ||
		proj.Sources[1].ConfigMap == nil || proj.Sources[1].ConfigMap.Name != "kube-root-ca.crt" ||
		proj.Sources[2].DownwardAPI == nil || proj.Sources[2].DownwardAPI.Items[0].FieldRef.FieldPath != "metadata.namespace" {
		t.Errorf("volume %+v", v)
	}
	for _, ctr := range append(p.Spec.InitContainers, p.Spec.Containers...) {
		want := []corev1.VolumeMount{{Name: v.Name, ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}}
		if len(ctr.VolumeMounts) != 1 || ctr.VolumeMounts[0] != want[0] {
			t.Errorf("container %s mounts %+v, want %+v", ctr.Name, ctr.VolumeMounts, want)
		}
	}

	p = get(pods.Create(ctx, newPod("no-token", func(p *corev1.Pod) {
		p.Spec.AutomountServiceAccountToken = ptr.To(false)
	}), metav1.CreateOptions{}))(t)
	if p.Spec.ServiceAccountName != "default" || len(p.Spec.Volumes) != 0 || len(p.Spec.Containers[0].VolumeMounts) != 0 {
		t.Errorf("automount false: %+v", p.Spec)
	}
	get(c.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "quiet"},
		AutomountServiceAccountToken: ptr.To(false)}, metav1.CreateOptions{}))(t)
	eventually(t, "a pod of a ServiceAccount with automount false is created without token", func() bool {
		p, err := pods.Create(ctx, newPod("quiet", func(p *corev1.Pod) { p.Spec.ServiceAccountName = "quiet" }), metav1.CreateOptions{})
		if err != nil {
			return false
		}
		if len(p.Spec.Volumes) != 0 {
			t.Errorf("automount false on the ServiceAccount: volumes %+v", p.Spec.Volumes)
		}
		return true
	})

	_, err := pods.Create(ctx, newPod("lost", func(p *corev1.Pod) { p.Spec.ServiceAccountName = "missing" }), metav1.CreateOptions{})
	want := `pods "lost" is forbidden: error looking up service account ` + ns + `/missing: serviceaccount "missing" not found`
	if !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("missing ServiceAccount: %v, want %q", err, want)
	}
	// The ServiceAccount is immutable on update (the pod strategy).
	cur := get(pods.Get(ctx, "first", metav1.GetOptions{}))(t)
	cur.Spec.ServiceAccountName = "quiet"
	if _, err := pods.Update(ctx, cur, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("changing serviceAccountName: %v, want Invalid", err)
	}
}
