package drift

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/kubernetes/pkg/controller"

	"github.com/svcplane/svcplane/internal/controller/deployment"
)

// hashTemplates are pod templates as a Deployment carries them (after the
// API server's defaults, or not): nil and empty maps and slices,
// quantities, pointers, nested structs.
func hashTemplates() map[string]corev1.PodTemplateSpec {
	base := func() corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
		}
	}
	with := func(f func(*corev1.PodTemplateSpec)) corev1.PodTemplateSpec {
		t := base()
		f(&t)
		return t
	}
	grace, uid := int64(30), int64(1000)
	yes := true
	return map[string]corev1.PodTemplateSpec{
		"zero":             {},
		"base":             base(),
		"empty labels map": with(func(t *corev1.PodTemplateSpec) { t.Labels = map[string]string{} }),
		"nil labels":       with(func(t *corev1.PodTemplateSpec) { t.Labels = nil }),
		"many labels": with(func(t *corev1.PodTemplateSpec) {
			t.Labels = map[string]string{"z": "1", "a": "2", "m": "3", "app": "web", "tier": "front"}
		}),
		"annotations": with(func(t *corev1.PodTemplateSpec) {
			t.Annotations = map[string]string{"kubectl.kubernetes.io/restartedAt": "2026-11-24T10:00:00Z"}
		}),
		"image changed": with(func(t *corev1.PodTemplateSpec) { t.Spec.Containers[0].Image = "nginx:1.27" }),
		"defaulted": with(func(t *corev1.PodTemplateSpec) {
			t.Spec.RestartPolicy = corev1.RestartPolicyAlways
			t.Spec.TerminationGracePeriodSeconds = &grace
			t.Spec.DNSPolicy = corev1.DNSClusterFirst
			t.Spec.SecurityContext = &corev1.PodSecurityContext{}
			t.Spec.SchedulerName = corev1.DefaultSchedulerName
			t.Spec.Containers[0].TerminationMessagePath = corev1.TerminationMessagePathDefault
			t.Spec.Containers[0].TerminationMessagePolicy = corev1.TerminationMessageReadFile
			t.Spec.Containers[0].ImagePullPolicy = corev1.PullIfNotPresent
		}),
		"resources": with(func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].Resources = corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")},
			}
		}),
		"ports and env": with(func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 80, Protocol: corev1.ProtocolTCP}}
			t.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "B", ValueFrom: &corev1.EnvVarSource{
				FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "status.podIP"}}}}
		}),
		"probe": with(func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].ReadinessProbe = &corev1.Probe{InitialDelaySeconds: 3, ProbeHandler: corev1.ProbeHandler{
				HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromString("http")}}}
		}),
		"two containers": with(func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers = append(t.Spec.Containers, corev1.Container{Name: "side", Image: "busybox", Command: []string{"sleep", "inf"}})
		}),
		"init container": with(func(t *corev1.PodTemplateSpec) {
			t.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "busybox"}}
		}),
		"empty slices": with(func(t *corev1.PodTemplateSpec) {
			t.Spec.Containers[0].Args = []string{}
			t.Spec.Volumes = []corev1.Volume{}
		}),
		"volumes": with(func(t *corev1.PodTemplateSpec) {
			t.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
			t.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "v", MountPath: "/data"}}
		}),
		"node selector and tolerations": with(func(t *corev1.PodTemplateSpec) {
			t.Spec.NodeSelector = map[string]string{"zone": "a", "disk": "ssd"}
			t.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
		}),
		"affinity": with(func(t *corev1.PodTemplateSpec) {
			t.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 10,
					PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname",
						LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}}}}
		}),
		"security context": with(func(t *corev1.PodTemplateSpec) {
			t.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: &uid, RunAsNonRoot: &yes}
		}),
		"scheduling gates": with(func(t *corev1.PodTemplateSpec) {
			t.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/gate"}}
		}),
		"unicode": with(func(t *corev1.PodTemplateSpec) {
			t.Annotations = map[string]string{"note": "grüße \"quoted\" \n newline"}
		}),
		"creationTimestamp": with(func(t *corev1.PodTemplateSpec) {
			t.CreationTimestamp = metav1.Date(2026, 1, 2, 3, 4, 5, 0, metav1.Now().Location())
		}),
	}
}

// TestPodTemplateHash: a Deployment's ReplicaSet gets the same
// pod-template-hash (and so the same name) from svcplane as from
// kube-controller-manager, for every template and collision count.
func TestPodTemplateHash(t *testing.T) {
	counts := []*int32{nil}
	for _, n := range []int32{0, 1, 2, 7, 255, 256, 65536, 1<<31 - 1, -1} {
		counts = append(counts, &n)
	}
	seen := map[string]string{}
	for name, tmpl := range hashTemplates() {
		for _, cc := range counts {
			label := fmt.Sprintf("%s/collisions=%v", name, cc)
			if cc != nil {
				label = fmt.Sprintf("%s/collisions=%d", name, *cc)
			}
			upstream := controller.ComputeHash(tmpl.DeepCopy(), cc)
			ours := deployment.TemplateHash(tmpl.DeepCopy(), cc)
			if ours != upstream {
				t.Errorf("%s: ours %q, upstream %q", label, ours, upstream)
			}
			if prev, ok := seen[upstream]; ok {
				t.Logf("%s: same hash as %s", label, prev)
			}
			seen[upstream] = label
		}
	}
}
