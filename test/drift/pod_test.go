package drift

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/svcplane/svcplane/internal/registry/core/pod"
)

// podCases are pods as clients send them: the ones issue 14 found
// accepted where upstream refuses them, and their valid neighbours.
func podCases() map[string]*corev1.Pod {
	q := resource.MustParse
	p := func(mutate func(*corev1.Pod)) *corev1.Pod {
		pd := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img"}}}}
		mutate(pd)
		return pd
	}
	probe := func(period int32) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}, PeriodSeconds: period}
	}
	return map[string]*corev1.Pod{
		"minimal": p(func(*corev1.Pod) {}),
		"cpu request above limit": p(func(pd *corev1.Pod) {
			pd.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("2")}, Limits: corev1.ResourceList{"cpu": q("1")}}
		}),
		"cpu request at limit": p(func(pd *corev1.Pod) {
			pd.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{"cpu": q("1")}, Limits: corev1.ResourceList{"cpu": q("1")}}
		}),
		"memory request above limit": p(func(pd *corev1.Pod) {
			pd.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{"memory": q("2Gi")}, Limits: corev1.ResourceList{"memory": q("1Gi")}}
		}),
		"mount of a missing volume": p(func(pd *corev1.Pod) {
			pd.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "x", MountPath: "/x"}}
		}),
		"mount of a volume": p(func(pd *corev1.Pod) {
			pd.Spec.Volumes = []corev1.Volume{{Name: "x", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
			pd.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "x", MountPath: "/x"}}
		}),
		"two mounts on one path": p(func(pd *corev1.Pod) {
			pd.Spec.Volumes = []corev1.Volume{{Name: "x", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "y", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
			pd.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "x", MountPath: "/x"}, {Name: "y", MountPath: "/x"}}
		}),
		"duplicate volume names": p(func(pd *corev1.Pod) {
			pd.Spec.Volumes = []corev1.Volume{{Name: "x", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "x", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		}),
		"gates and nodeName": p(func(pd *corev1.Pod) {
			pd.Spec.NodeName = "n1"
			pd.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/gate"}}
		}),
		"negative probe period": p(func(pd *corev1.Pod) { pd.Spec.Containers[0].LivenessProbe = probe(-1) }),
		"probe defaults":        p(func(pd *corev1.Pod) { pd.Spec.Containers[0].ReadinessProbe = probe(0) }),
		"bogus toleration operator": p(func(pd *corev1.Pod) {
			pd.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: "Bogus", Value: "v"}}
		}),
		"exists toleration with a value": p(func(pd *corev1.Pod) {
			pd.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, Value: "v"}}
		}),
		"empty key needs Exists": p(func(pd *corev1.Pod) {
			pd.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpEqual}}
		}),
		"tolerationSeconds without NoExecute": p(func(pd *corev1.Pod) {
			s := int64(5)
			pd.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule, TolerationSeconds: &s}}
		}),
		"valid tolerations": p(func(pd *corev1.Pod) {
			s := int64(5)
			pd.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &s}}
		}),
	}
}

// TestPodMatchesUpstream runs each case through upstream's v1 defaulting
// and ValidatePodCreate, and through ours (defaults, object meta,
// Validate): the probes' defaults and the error paths and types must
// agree.
func TestPodMatchesUpstream(t *testing.T) {
	def := pod.Definition()
	for name, in := range podCases() {
		t.Run(name, func(t *testing.T) {
			theirs, ours := in.DeepCopy(), in.DeepCopy()
			legacyscheme.Scheme.Default(theirs)
			def.Default(ours)
			for i := range theirs.Spec.Containers {
				tc, oc := theirs.Spec.Containers[i], ours.Spec.Containers[i]
				for _, pr := range [][2]*corev1.Probe{{tc.LivenessProbe, oc.LivenessProbe}, {tc.ReadinessProbe, oc.ReadinessProbe}} {
					if !reflect.DeepEqual(pr[0], pr[1]) {
						t.Errorf("probe defaults: upstream %+v, ours %+v", pr[0], pr[1])
					}
				}
			}
			internal := &api.Pod{}
			toInternal(t, theirs, internal)
			sameErrors(t, def, ours, validation.ValidatePodCreate(internal, validation.PodValidationOptions{}))
		})
	}
}
