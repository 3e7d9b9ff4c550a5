package pod

import (
	"context"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// testPod is a defaulted valid pod changed by mutate.
func testPod(mutate func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "img"}}}}
	mutate(p)
	DefaultPod(p)
	return p
}

func errorStrings(errs field.ErrorList) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Error())
	}
	sort.Strings(out)
	return out
}

// TestValidatePodCreate: one case per area of upstream's pod checks, with
// upstream's paths and messages (test/drift compares hundreds more with
// upstream's code).
func TestValidatePodCreate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*corev1.Pod)
		want   []string
	}{
		{"valid", func(*corev1.Pod) {}, []string{}},
		{"init container named as a container", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "c", Image: "img"}}
		}, []string{`spec.initContainers[0].name: Duplicate value: "c"`}},
		{"env value and valueFrom", func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", Value: "x", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
		}, []string{`spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when ` + "`value`" + ` is not empty`}},
		{"unsupported fieldPath", func(p *corev1.Pod) {
			p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.bogus"}}}}
		}, []string{`spec.containers[0].env[0].valueFrom.fieldRef.fieldPath: Invalid value: "spec.bogus": error converting fieldPath: field label not supported: spec.bogus`}},
		{"two volume sources", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/x"}, EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
		}, []string{"spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type"}},
		{"mount of a volume that failed", func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}}}
			p.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "v", MountPath: "/v"}}
		}, []string{`spec.containers[0].volumeMounts[0].name: Not found: "v"`, "spec.volumes[0].configMap.name: Required value"}},
		{"probe with two handlers", func(p *corev1.Pod) {
			p.Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
				Exec: &corev1.ExecAction{Command: []string{"true"}}, TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(80)}}}
		}, []string{"spec.containers[0].livenessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type"}},
		{"probe on an init container", func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "i", Image: "img", ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}}}
		}, []string{"spec.initContainers[0].readinessProbe: Forbidden: may not be set for init containers without restartPolicy=Always"}},
		{"extended request without limit", func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{"example.com/x": resource.MustParse("1")}
		}, []string{"spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources"}},
		{"negative runAsUser", func(p *corev1.Pod) {
			u := int64(-1)
			p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: &u}
		}, []string{"spec.securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive"}},
		{"anti-affinity without topologyKey", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{}}}}
		}, []string{
			`spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name part must be non-empty`,
			`spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Invalid value: "": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
			"spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty",
		}},
		{"DNS None without config", func(p *corev1.Pod) { p.Spec.DNSPolicy = corev1.DNSNone },
			[]string{"spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"}},
		{"hostNetwork port mismatch", func(p *corev1.Pod) {
			p.Spec.HostNetwork = true
			p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: 81}}
		}, []string{"spec.containers[0].ports[0].hostPort: Invalid value: 81: must match `containerPort` when `hostNetwork` is true"}},
		{"ephemeral containers on create", func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "e", Image: "img"}}}
		}, []string{"spec.ephemeralContainers: Forbidden: cannot be set on create"}},
		{"image with spaces", func(p *corev1.Pod) { p.Spec.Containers[0].Image = " img" },
			[]string{`spec.containers[0].image: Invalid value: " img": must not have leading or trailing whitespace`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := errorStrings(validatePodCreate(testPod(tc.mutate)))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n got  %q\n want %q", got, tc.want)
			}
		})
	}
}

// TestValidatePodUpdate: what an update may change.
func TestValidatePodUpdate(t *testing.T) {
	deadline := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name     string
		old, now func(*corev1.Pod)
		want     []string
	}{
		{"image", func(*corev1.Pod) {}, func(p *corev1.Pod) { p.Spec.Containers[0].Image = "img2" }, []string{}},
		{"added container", func(*corev1.Pod) {}, func(p *corev1.Pod) {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: "d", Image: "img"})
		}, []string{"spec.containers: Forbidden: pod updates may not add or remove containers"}},
		{"raised deadline", func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = deadline(10) },
			func(p *corev1.Pod) { p.Spec.ActiveDeadlineSeconds = deadline(20) },
			[]string{"spec.activeDeadlineSeconds: Invalid value: 20: must be less than or equal to previous value"}},
		{"removed toleration", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}
		},
			func(p *corev1.Pod) { p.Spec.Tolerations = nil },
			[]string{"spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := validateUpdate(context.Background(), testPod(tc.now), testPod(tc.old))
			if got := errorStrings(errs); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n got  %q\n want %q", got, tc.want)
			}
		})
	}
	// A forbidden change names the updatable fields and shows the change.
	errs := validateUpdate(context.Background(), testPod(func(p *corev1.Pod) { p.Spec.RestartPolicy = corev1.RestartPolicyNever }), testPod(func(*corev1.Pod) {}))
	if len(errs) != 1 || errs[0].Type != field.ErrorTypeForbidden || !strings.Contains(errs[0].Detail, "`spec.containers[*].image`") ||
		!strings.Contains(errs[0].Detail, `+ "RestartPolicy": "Never",`) {
		t.Errorf("forbidden change: %v", errs)
	}
}

// TestValidateStatusUpdate: what a /status update may not do.
func TestValidateStatusUpdate(t *testing.T) {
	old := testPod(func(p *corev1.Pod) { p.Spec.NodeName = "n1"; p.Status.QOSClass = corev1.PodQOSBestEffort })
	p := old.DeepCopy()
	p.Status.QOSClass = corev1.PodQOSGuaranteed
	p.Status.NominatedNodeName = "n2"
	p.Status.PodIPs = []corev1.PodIP{{IP: "10.0.0.1"}, {IP: "10.0.0.2"}}
	p.Status.HostIP, p.Status.HostIPs = "10.1.0.1", []corev1.HostIP{{IP: "10.1.0.2"}}
	got := errorStrings(validateStatusUpdate(p, old))
	want := []string{
		`status.hostIPs[0].ip: Invalid value: "10.1.0.2": must be equal to ` + "`hostIP`",
		"status.nominatedNodeName: Forbidden: may not be set on pods that are already bound to a node",
		`status.podIPs: Invalid value: [{"IP":"10.0.0.1"},{"IP":"10.0.0.2"}]: may specify no more than one IP for each IP family`,
		`status.qosClass: Invalid value: "Guaranteed": field is immutable`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n got  %q\n want %q", got, want)
	}
}
