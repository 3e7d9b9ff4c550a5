package informerutil

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	resourcehelper "k8s.io/component-helpers/resource"
	esreconciler "k8s.io/endpointslice"
	"k8s.io/utils/ptr"
)

func controllerPod() *corev1.Pod {
	always := corev1.ContainerRestartPolicyAlways
	container := func(name string) corev1.Container {
		return corev1.Container{Name: name, Image: "img", Command: []string{"/app"}, Args: []string{"-v"}, WorkingDir: "/w",
			Ports:     []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}},
			Env:       []corev1.EnvVar{{Name: "A", Value: "b"}}, EnvFrom: []corev1.EnvFromSource{{Prefix: "X"}},
			VolumeMounts:   []corev1.VolumeMount{{Name: "v", MountPath: "/v"}},
			ReadinessProbe: &corev1.Probe{PeriodSeconds: 3}, Lifecycle: &corev1.Lifecycle{},
			TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			SecurityContext: &corev1.SecurityContext{RunAsNonRoot: ptr.To(true)}}
	}
	sidecar := container("sidecar")
	sidecar.RestartPolicy = &always
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", Labels: map[string]string{"app": "web"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}},
		Spec: corev1.PodSpec{NodeName: "n1", Hostname: "h", Subdomain: "s",
			InitContainers: []corev1.Container{sidecar}, Containers: []corev1.Container{container("web")},
			Volumes:     []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
			Tolerations: []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}},
			Overhead:    corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Mi")}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1",
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
}

func TestForControllersKeepsWhatControllersRead(t *testing.T) {
	whole := controllerPod()
	out, err := ForControllers(whole.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*corev1.Pod)
	if got.ManagedFields != nil || got.Spec.Volumes != nil {
		t.Errorf("kept managedFields %v or volumes %v", got.ManagedFields, got.Spec.Volumes)
	}
	for _, c := range append(got.Spec.InitContainers, got.Spec.Containers...) {
		if c.Command != nil || c.Args != nil || c.Env != nil || c.EnvFrom != nil || c.VolumeMounts != nil || c.ReadinessProbe != nil ||
			c.Lifecycle != nil || c.SecurityContext != nil || c.TerminationMessagePath != "" || c.WorkingDir != "" {
			t.Errorf("container %s kept a trimmed field: %+v", c.Name, c)
		}
	}
	// What the controllers read is the same: requests (scheduler), named
	// target ports (endpointslice), labels, node, status.
	opts := resourcehelper.PodResourcesOptions{}
	if a, b := resourcehelper.PodRequests(whole, opts), resourcehelper.PodRequests(got, opts); !reflect.DeepEqual(a, b) {
		t.Errorf("requests %v, whole pod's %v", b, a)
	}
	sp := &corev1.ServicePort{TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}
	p1, err1 := esreconciler.FindPort(whole, sp)
	p2, err2 := esreconciler.FindPort(got, sp)
	if p1 != p2 || (err1 == nil) != (err2 == nil) || p2 != 8080 {
		t.Errorf("named port %d %v, whole pod's %d %v", p2, err2, p1, err1)
	}
	whole.ManagedFields, whole.Spec.Volumes = nil, nil
	if !reflect.DeepEqual(got.ObjectMeta, whole.ObjectMeta) || !reflect.DeepEqual(got.Status, whole.Status) ||
		!reflect.DeepEqual(got.Spec.Tolerations, whole.Spec.Tolerations) || got.Spec.NodeName != "n1" || got.Spec.Hostname != "h" ||
		got.Spec.Containers[0].Image != "img" || got.Spec.InitContainers[0].RestartPolicy == nil {
		t.Errorf("trimmed more than it should: %+v", got)
	}
	// Other objects only lose their managed fields.
	m := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "x", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}}}
	if out, err := ForControllers(m); err != nil || out.(*metav1.PartialObjectMetadata).ManagedFields != nil {
		t.Errorf("metadata: %v %v", out, err)
	}
}
