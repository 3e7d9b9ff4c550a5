package node

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// trimPod returns a new pod with what TrimPod keeps of pod.
func trimPod(pod *corev1.Pod) *corev1.Pod {
	out := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID,
			ResourceVersion: pod.ResourceVersion, DeletionTimestamp: pod.DeletionTimestamp,
		},
		Spec: corev1.PodSpec{
			NodeName:           pod.Spec.NodeName,
			ServiceAccountName: pod.Spec.ServiceAccountName,
			ImagePullSecrets:   pod.Spec.ImagePullSecrets,
			ResourceClaims:     pod.Spec.ResourceClaims,
		},
		Status: corev1.PodStatus{
			ResourceClaimStatuses:       pod.Status.ResourceClaimStatuses,
			ExtendedResourceClaimStatus: pod.Status.ExtendedResourceClaimStatus,
		},
	}
	if v, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		out.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: v}
	}
	s := &out.Spec
	for i := range pod.Spec.InitContainers {
		if c, refers := trimContainer(&pod.Spec.InitContainers[i]); refers {
			s.InitContainers = append(s.InitContainers, c)
		}
	}
	for i := range pod.Spec.Containers {
		if c, refers := trimContainer(&pod.Spec.Containers[i]); refers {
			s.Containers = append(s.Containers, c)
		}
	}
	if n := len(pod.Spec.EphemeralContainers); n > 0 {
		s.EphemeralContainers = make([]corev1.EphemeralContainer, n)
		for i := range pod.Spec.EphemeralContainers {
			c, _ := trimContainer((*corev1.Container)(&pod.Spec.EphemeralContainers[i].EphemeralContainerCommon))
			s.EphemeralContainers[i].EphemeralContainerCommon = corev1.EphemeralContainerCommon(c)
		}
	}
	for i := range pod.Spec.Volumes {
		if v, refers := trimVolume(pod, &pod.Spec.Volumes[i]); refers {
			s.Volumes = append(s.Volumes, v)
		}
	}
	return out
}

// trimContainer keeps a container's name and the env and envFrom entries
// that name a Secret or ConfigMap; refers says whether there are any.
func trimContainer(c *corev1.Container) (corev1.Container, bool) {
	out := corev1.Container{Name: c.Name}
	for _, e := range c.EnvFrom {
		if e.SecretRef != nil || e.ConfigMapRef != nil {
			out.EnvFrom = append(out.EnvFrom, corev1.EnvFromSource{SecretRef: e.SecretRef, ConfigMapRef: e.ConfigMapRef})
		}
	}
	for _, e := range c.Env {
		if f := e.ValueFrom; f != nil && (f.SecretKeyRef != nil || f.ConfigMapKeyRef != nil) {
			out.Env = append(out.Env, corev1.EnvVar{Name: e.Name, ValueFrom: &corev1.EnvVarSource{
				SecretKeyRef: f.SecretKeyRef, ConfigMapKeyRef: f.ConfigMapKeyRef}})
		}
	}
	return out, len(out.EnvFrom) > 0 || len(out.Env) > 0
}

// trimVolume keeps of a volume its name and the sources that can name an
// object, with only the names (projections other than Secrets and
// ConfigMaps, ephemeral claim templates, CSI drivers and attributes go);
// every such source that is set stays set, so that podRefs' switches pick
// the same one. refers says whether the volume names anything at all, as
// podRefs finds for a pod with this one volume.
func trimVolume(pod *corev1.Pod, v *corev1.Volume) (corev1.Volume, bool) {
	in := &v.VolumeSource
	out := corev1.Volume{Name: v.Name}
	s := &out.VolumeSource
	// The rarely used sources whose only reference is a secret are kept
	// whole: they are small and podRefs reads them as they are.
	s.AzureFile, s.CephFS, s.Cinder, s.FlexVolume = in.AzureFile, in.CephFS, in.Cinder, in.FlexVolume
	s.RBD, s.ScaleIO, s.ISCSI, s.StorageOS = in.RBD, in.ScaleIO, in.ISCSI, in.StorageOS
	if in.Projected != nil {
		s.Projected = &corev1.ProjectedVolumeSource{}
		for _, p := range in.Projected.Sources {
			switch {
			case p.Secret != nil:
				s.Projected.Sources = append(s.Projected.Sources, corev1.VolumeProjection{
					Secret: &corev1.SecretProjection{LocalObjectReference: p.Secret.LocalObjectReference}})
			case p.ConfigMap != nil:
				s.Projected.Sources = append(s.Projected.Sources, corev1.VolumeProjection{
					ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: p.ConfigMap.LocalObjectReference}})
			}
		}
	}
	if in.Secret != nil {
		s.Secret = &corev1.SecretVolumeSource{SecretName: in.Secret.SecretName}
	}
	if in.ConfigMap != nil {
		s.ConfigMap = &corev1.ConfigMapVolumeSource{LocalObjectReference: in.ConfigMap.LocalObjectReference}
	}
	if in.CSI != nil {
		s.CSI = &corev1.CSIVolumeSource{NodePublishSecretRef: in.CSI.NodePublishSecretRef}
	}
	if in.PersistentVolumeClaim != nil {
		s.PersistentVolumeClaim = &corev1.PersistentVolumeClaimVolumeSource{ClaimName: in.PersistentVolumeClaim.ClaimName}
	}
	if in.Ephemeral != nil {
		s.Ephemeral = &corev1.EphemeralVolumeSource{}
	}
	one := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name},
		Spec: corev1.PodSpec{Volumes: []corev1.Volume{out}}}
	return out, len(podRefs(one)) > 0
}
