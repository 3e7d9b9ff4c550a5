package serviceaccount

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	satoken "github.com/svcplane/svcplane/internal/auth/serviceaccount"
)

const (
	// ServiceAccountVolumeName is the prefix of the token volume's name.
	ServiceAccountVolumeName = "kube-api-access"
	// DefaultAPITokenMountPath is where every container finds its token,
	// ca.crt and namespace.
	DefaultAPITokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
)

// shouldAutomount: the pod's automountServiceAccountToken wins, then the
// ServiceAccount's; unset means yes.
func shouldAutomount(sa *corev1.ServiceAccount, pod *corev1.Pod) bool {
	if pod.Spec.AutomountServiceAccountToken != nil {
		return *pod.Spec.AutomountServiceAccountToken
	}
	if sa.AutomountServiceAccountToken != nil {
		return *sa.AutomountServiceAccountToken
	}
	return true
}

// mountServiceAccountToken mounts the token volume read-only at
// DefaultAPITokenMountPath in every init and regular container without a
// mount there, and adds the volume when one of them needed it and the
// pod has no kube-api-access- volume yet (whose name the mounts then use).
func (p *Plugin) mountServiceAccountToken(pod *corev1.Pod) {
	volumeName := ""
	for _, v := range pod.Spec.Volumes {
		if strings.HasPrefix(v.Name, ServiceAccountVolumeName+"-") {
			volumeName = v.Name
			break
		}
	}
	hasVolume := volumeName != ""
	if !hasVolume {
		volumeName = p.generateName(ServiceAccountVolumeName + "-")
	}
	mount := corev1.VolumeMount{Name: volumeName, ReadOnly: true, MountPath: DefaultAPITokenMountPath}
	needsVolume := false
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			if !mountsTokenPath(&cs[i]) {
				cs[i].VolumeMounts = append(cs[i].VolumeMounts, mount)
				needsVolume = true
			}
		}
	}
	if !hasVolume && needsVolume {
		pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{
			Name: volumeName, VolumeSource: corev1.VolumeSource{Projected: TokenVolumeSource()}})
	}
}

// mountsTokenPath: a container's own mount at the token path keeps ours
// out.
func mountsTokenPath(c *corev1.Container) bool {
	for _, m := range c.VolumeMounts {
		if m.MountPath == DefaultAPITokenMountPath {
			return true
		}
	}
	return false
}

// TokenVolumeSource is the kube-api-access volume: a token for the pod's
// ServiceAccount, the cluster CA of the kube-root-ca.crt ConfigMap and the
// pod's namespace, with the default mode spelled out (0644), as upstream.
// The token asks for 3607 s, which TokenRequest extends (warn-only) when
// --service-account-extend-token-expiration is on.
func TokenVolumeSource() *corev1.ProjectedVolumeSource {
	return &corev1.ProjectedVolumeSource{
		DefaultMode: ptr.To[int32](corev1.ProjectedVolumeSourceDefaultMode),
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{
				Path: "token", ExpirationSeconds: ptr.To[int64](satoken.WarnOnlyBoundTokenExpirationSeconds)}},
			{ConfigMap: &corev1.ConfigMapProjection{
				LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items:                []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{
				Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		},
	}
}
