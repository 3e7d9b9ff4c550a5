package pod

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// TestImagePullPolicyDefault: Always for :latest or no tag, IfNotPresent
// for another tag, a digest, or a reference that does not parse (as
// upstream's ParseImageName decides).
func TestImagePullPolicyDefault(t *testing.T) {
	for image, want := range map[string]corev1.PullPolicy{
		"nginx":                 corev1.PullAlways,
		"nginx:latest":          corev1.PullAlways,
		"registry:5000/a/b":     corev1.PullAlways,
		"nginx:1.27":            corev1.PullIfNotPresent,
		"registry:5000/a/b:v1":  corev1.PullIfNotPresent,
		"nginx@sha256:" + hex64: corev1.PullIfNotPresent,
		"":                      corev1.PullIfNotPresent,
		" nginx ":               corev1.PullIfNotPresent,
		"Upper/Case":            corev1.PullIfNotPresent,
	} {
		c := corev1.Container{Image: image}
		defaultContainer(&c)
		if c.ImagePullPolicy != want {
			t.Errorf("%q: %s, want %s", image, c.ImagePullPolicy, want)
		}
	}
}

const hex64 = "0123456789012345678901234567890123456789012345678901234567890123"

// TestDefaultPodOnlyDefaults: what upstream defaults on a Pod but not on a
// template (requests from limits, service links, host ports, the grace
// period made 1); the serviceAccount alias holds for both.
func TestDefaultPodOnlyDefaults(t *testing.T) {
	neg := int64(-5)
	spec := corev1.PodSpec{
		HostNetwork:                   true,
		TerminationGracePeriodSeconds: &neg,
		DeprecatedServiceAccount:      "sa",
		InitContainers:                []corev1.Container{{Name: "i", Image: "x", Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"cpu": resource.MustParse("1")}}}},
		Containers: []corev1.Container{{Name: "c", Image: "x", Ports: []corev1.ContainerPort{{ContainerPort: 80}},
			Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{"memory": resource.MustParse("1Gi")},
				Requests: corev1.ResourceList{"cpu": resource.MustParse("100m")}}}},
	}
	tmpl := spec.DeepCopy()
	DefaultPodSpec(tmpl)
	if tmpl.EnableServiceLinks != nil || tmpl.Containers[0].Ports[0].HostPort != 0 || len(tmpl.InitContainers[0].Resources.Requests) != 0 || *tmpl.TerminationGracePeriodSeconds != -5 ||
		tmpl.ServiceAccountName != "sa" {
		t.Errorf("template got Pod-only defaults: %+v", tmpl)
	}
	p := &corev1.Pod{Spec: spec}
	DefaultPod(p)
	s := p.Spec
	if s.EnableServiceLinks == nil || !*s.EnableServiceLinks {
		t.Error("enableServiceLinks not defaulted")
	}
	if s.Containers[0].Ports[0].HostPort != 80 {
		t.Errorf("hostPort %d, want 80", s.Containers[0].Ports[0].HostPort)
	}
	if q := s.InitContainers[0].Resources.Requests["cpu"]; q.String() != "1" {
		t.Errorf("init request %v, want the limit 1", q.String())
	}
	if q := s.Containers[0].Resources.Requests["memory"]; q.String() != "1Gi" {
		t.Errorf("memory request %v, want the limit 1Gi", q.String())
	}
	if q := s.Containers[0].Resources.Requests["cpu"]; q.String() != "100m" {
		t.Errorf("cpu request %v, want the own 100m", q.String())
	}
	if *s.TerminationGracePeriodSeconds != 1 {
		t.Errorf("grace period %d, want 1", *s.TerminationGracePeriodSeconds)
	}
	if s.ServiceAccountName != "sa" || s.DeprecatedServiceAccount != "sa" {
		t.Errorf("service account %q/%q", s.ServiceAccountName, s.DeprecatedServiceAccount)
	}
}

// TestVolumeDefaults: modes, token expiry, hostPath type, an emptyDir for
// a volume without a source, fieldRef apiVersion.
func TestVolumeDefaults(t *testing.T) {
	spec := corev1.PodSpec{Volumes: []corev1.Volume{
		{Name: "none"},
		{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}},
		{Name: "cm", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{}}},
		{Name: "d", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
			Items: []corev1.DownwardAPIVolumeFile{{Path: "n", FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}}},
		{Name: "p", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
			Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "t"}}}}}},
		{Name: "h", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/x"}}},
	}}
	DefaultPodSpec(&spec)
	v := spec.Volumes
	switch {
	case v[0].EmptyDir == nil:
		t.Error("no emptyDir for a volume without a source")
	case *v[1].Secret.DefaultMode != 0644 || *v[2].ConfigMap.DefaultMode != 0644 || *v[3].DownwardAPI.DefaultMode != 0644 || *v[4].Projected.DefaultMode != 0644:
		t.Error("default modes not 0644")
	case v[3].DownwardAPI.Items[0].FieldRef.APIVersion != "v1":
		t.Error("fieldRef apiVersion not v1")
	case *v[4].Projected.Sources[0].ServiceAccountToken.ExpirationSeconds != 3600:
		t.Error("token expiry not an hour")
	case *v[5].HostPath.Type != corev1.HostPathUnset:
		t.Error("hostPath type not set")
	}
}
