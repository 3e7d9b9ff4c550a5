package node

import (
	"fmt"
	"reflect"
	"testing"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// admittedPod is a ReplicaSet's pod as the server stores it after
// admission (the service account's kube-api-access volume, default
// tolerations) and a node's status write.
func admittedPod() *corev1.Pod {
	now := metav1.Now()
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-7d9f-abcde", UID: "u1", ResourceVersion: "42",
			GenerateName: "web-7d9f-", Labels: map[string]string{"app": "web", "pod-template-hash": "7d9f"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d9f", UID: "rs", Controller: ptr.To(true)}},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate}}},
		Spec: corev1.PodSpec{
			NodeName: "n1", ServiceAccountName: "default", SchedulerName: "default-scheduler", RestartPolicy: corev1.RestartPolicyAlways,
			DNSPolicy: corev1.DNSClusterFirst, TerminationGracePeriodSeconds: ptr.To[int64](30),
			Containers: []corev1.Container{{Name: "web", Image: "registry.k8s.io/pause:3.10", ImagePullPolicy: corev1.PullIfNotPresent,
				Command: []string{"/pause"}, Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
				Resources:              corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m")}},
				Env:                    []corev1.EnvVar{{Name: "MODE", Value: "prod"}},
				VolumeMounts:           []corev1.VolumeMount{{Name: "kube-api-access-x", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
				TerminationMessagePath: "/dev/termination-log", TerminationMessagePolicy: corev1.TerminationMessageReadFile}},
			Volumes: []corev1.Volume{
				{Name: "kube-api-access-x", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{DefaultMode: ptr.To[int32](420),
					Sources: []corev1.VolumeProjection{
						{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](3607)}},
						{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
							Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
						{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
							FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}}}}}},
				{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
			},
			Tolerations: []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}},
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, HostIP: "10.0.0.1", PodIP: "10.244.0.5", StartTime: &now,
			PodIPs:     []corev1.PodIP{{IP: "10.244.0.5"}},
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Ready: true, Image: "registry.k8s.io/pause:3.10",
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}}},
	}
}

// recordCases are pods whose references and identity a record keeps.
func recordCases() map[string]*corev1.Pod {
	mirror := secretPod("ns", "static-n1", "n1", "s")
	mirror.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "hash", "other": "x"}
	deleting := admittedPod()
	deleting.DeletionTimestamp = ptr.To(metav1.Now())
	rare := secretPod("ns", "rare", "n1", "s")
	rare.Spec.Volumes = append(rare.Spec.Volumes,
		corev1.Volume{Name: "rbd", VolumeSource: corev1.VolumeSource{RBD: &corev1.RBDVolumeSource{SecretRef: &corev1.LocalObjectReference{Name: "rbd-s"}}}},
		corev1.Volume{Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm-v"}}}},
		corev1.Volume{Name: "azure", VolumeSource: corev1.VolumeSource{AzureFile: &corev1.AzureFileVolumeSource{SecretName: "az"}}},
		// Not valid, but podRefs' switch must pick the same source.
		corev1.Volume{Name: "two", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{},
			Secret: &corev1.SecretVolumeSource{SecretName: "hidden"}}},
		corev1.Volume{Name: "empty-name", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{}}})
	return map[string]*corev1.Pod{
		"every reference": everyRefPod(), "admitted": admittedPod(), "mirror": mirror,
		"deleting": deleting, "rare sources": rare, "unbound": secretPod("ns", "pending", "", "s"),
	}
}

func TestRecordKeepsWhatItsReadersRead(t *testing.T) {
	for name, pod := range recordCases() {
		t.Run(name, func(t *testing.T) {
			got := RecordPod(pod)
			if fmt.Sprint(got.refs) != fmt.Sprint(podRefs(pod)) {
				t.Errorf("references %v, want %v", got.refs, podRefs(pod))
			}
			if referencesMayDiffer(got, RecordPod(pod.DeepCopy())) {
				t.Errorf("an update to the same pod would re-add it")
			}
			// NodeRestriction and the token authenticator read these.
			p := got.Pod()
			if p.Namespace != pod.Namespace || p.Name != pod.Name || p.UID != pod.UID || p.ResourceVersion != pod.ResourceVersion ||
				p.Spec.NodeName != pod.Spec.NodeName || !p.DeletionTimestamp.Equal(pod.DeletionTimestamp) {
				t.Errorf("identity %+v node %q, want that of %+v node %q", p.ObjectMeta, p.Spec.NodeName, pod.ObjectMeta, pod.Spec.NodeName)
			}
			if m := got.GetObjectMeta(); m.GetNamespace() != pod.Namespace || m.GetName() != pod.Name || m.GetResourceVersion() != pod.ResourceVersion {
				t.Errorf("object meta %v, want the pod's identity", m)
			}
			if c := got.DeepCopyObject().(*PodRecord); !reflect.DeepEqual(c, got) {
				t.Errorf("copy %+v, want %+v", c, got)
			}
		})
	}
}

// TestRecordReAddsAsUpstream: an update re-adds a pod to the Graph on
// upstream's conditions (node, UID, more ephemeral containers, other
// claim statuses) and on no other change.
func TestRecordReAddsAsUpstream(t *testing.T) {
	base := admittedPod()
	for _, tc := range []struct {
		name   string
		change func(*corev1.Pod)
		readd  bool
	}{
		{"status", func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed; p.ResourceVersion = "43" }, false},
		{"labels", func(p *corev1.Pod) { p.Labels = map[string]string{"x": "y"} }, false},
		{"node", func(p *corev1.Pod) { p.Spec.NodeName = "n2" }, true},
		{"uid", func(p *corev1.Pod) { p.UID = "u2" }, true},
		{"ephemeral container", func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debug"}}}
		}, true},
		{"claim status", func(p *corev1.Pod) {
			p.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: ptr.To("web-gpu")}}
		}, true},
	} {
		next := base.DeepCopy()
		tc.change(next)
		if got := referencesMayDiffer(RecordPod(base), RecordPod(next)); got != tc.readd {
			t.Errorf("%s: re-add %v, want %v", tc.name, got, tc.readd)
		}
	}
}

// TestRecordIsSmall: what the server's pods informer keeps of a typical
// pod is a small part of the decoded pod.
func TestRecordIsSmall(t *testing.T) {
	pod := admittedPod()
	got := RecordPod(pod)
	record := int(unsafe.Sizeof(*got)) + len(got.refs)*int(unsafe.Sizeof(ref{}))
	if whole := int(unsafe.Sizeof(*pod)); record*4 > whole {
		t.Errorf("record is %d bytes with its references, a Pod struct alone %d: want at most a quarter", record, whole)
	}
	if len(got.refs) != 2 {
		t.Errorf("references %v, want the service account and kube-root-ca.crt", got.refs)
	}
}
