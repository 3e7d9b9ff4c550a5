package node

import (
	corev1 "k8s.io/api/core/v1"
)

// kind is the type of an object a pod refers to (a vertex type of
// upstream's graph).
type kind uint8

const (
	kindSecret kind = iota
	kindConfigMap
	kindServiceAccount
	kindPVC
	kindResourceClaim
)

// ref names an object of one kind in a namespace.
type ref struct {
	kind      kind
	namespace string
	name      string
}

// podRefs lists, each once, the objects a pod gives its node access to:
// its ServiceAccount, the Secrets and ConfigMaps of its volumes, image
// pull secrets and containers' env (init and ephemeral containers too),
// its PVCs (ephemeral volumes' generated claims included) and its resource
// claims, as upstream's Graph.AddPod draws edges to the pod. A mirror pod
// refers to nothing.
func podRefs(pod *corev1.Pod) []ref {
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return nil
	}
	var out []ref
	seen := map[ref]bool{}
	add := func(k kind, name string) {
		r := ref{k, pod.Namespace, name}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	if pod.Spec.ServiceAccountName != "" {
		add(kindServiceAccount, pod.Spec.ServiceAccountName)
	}
	visitSecrets(pod, func(name string) { add(kindSecret, name) })
	visitConfigMaps(pod, func(name string) { add(kindConfigMap, name) })
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		switch {
		case v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName != "":
			add(kindPVC, v.PersistentVolumeClaim.ClaimName)
		case v.PersistentVolumeClaim == nil && v.Ephemeral != nil:
			// The ephemeral volume controller's claim name.
			add(kindPVC, pod.Name+"-"+v.Name)
		}
	}
	for i := range pod.Spec.ResourceClaims {
		if name, ok := resourceClaimName(pod, &pod.Spec.ResourceClaims[i]); ok {
			add(kindResourceClaim, name)
		}
	}
	if s := pod.Status.ExtendedResourceClaimStatus; s != nil && s.ResourceClaimName != "" {
		add(kindResourceClaim, s.ResourceClaimName)
	}
	return out
}

// resourceClaimName is the ResourceClaim a pod's claim entry names: its
// resourceClaimName, or for a template the claim the pod's status records
// (none yet: not ok).
func resourceClaimName(pod *corev1.Pod, c *corev1.PodResourceClaim) (string, bool) {
	switch {
	case c.ResourceClaimName != nil:
		return *c.ResourceClaimName, true
	case c.ResourceClaimTemplateName != nil:
		for _, s := range pod.Status.ResourceClaimStatuses {
			if s.Name == c.Name {
				if s.ResourceClaimName == nil {
					return "", false
				}
				return *s.ResourceClaimName, true
			}
		}
	}
	return "", false
}

// containers visits the pod's init, regular and ephemeral containers.
func containers(spec *corev1.PodSpec, visit func(*corev1.Container)) {
	for i := range spec.InitContainers {
		visit(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		visit(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		visit((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
}

// visitSecrets calls visit with every non-empty Secret name the pod uses
// (upstream's VisitPodSecretNames).
func visitSecrets(pod *corev1.Pod, visit func(string)) {
	v := nonEmpty(visit)
	for _, s := range pod.Spec.ImagePullSecrets {
		v(s.Name)
	}
	containers(&pod.Spec, func(c *corev1.Container) {
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil {
				v(e.SecretRef.Name)
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				v(e.ValueFrom.SecretKeyRef.Name)
			}
		}
	})
	for i := range pod.Spec.Volumes {
		volumeSecrets(&pod.Spec.Volumes[i].VolumeSource, v)
	}
}

// volumeSecrets visits the Secrets one volume source uses; only the first
// source set counts, as upstream's switch.
func volumeSecrets(s *corev1.VolumeSource, v func(string)) {
	local := func(r *corev1.LocalObjectReference) {
		if r != nil {
			v(r.Name)
		}
	}
	switch {
	case s.AzureFile != nil:
		v(s.AzureFile.SecretName)
	case s.CephFS != nil:
		local(s.CephFS.SecretRef)
	case s.Cinder != nil:
		local(s.Cinder.SecretRef)
	case s.FlexVolume != nil:
		local(s.FlexVolume.SecretRef)
	case s.Projected != nil:
		for _, p := range s.Projected.Sources {
			if p.Secret != nil {
				v(p.Secret.Name)
			}
		}
	case s.RBD != nil:
		local(s.RBD.SecretRef)
	case s.Secret != nil:
		v(s.Secret.SecretName)
	case s.ScaleIO != nil:
		local(s.ScaleIO.SecretRef)
	case s.ISCSI != nil:
		local(s.ISCSI.SecretRef)
	case s.StorageOS != nil:
		local(s.StorageOS.SecretRef)
	case s.CSI != nil:
		local(s.CSI.NodePublishSecretRef)
	}
}

// visitConfigMaps calls visit with every non-empty ConfigMap name the pod
// uses (upstream's VisitPodConfigmapNames).
func visitConfigMaps(pod *corev1.Pod, visit func(string)) {
	v := nonEmpty(visit)
	containers(&pod.Spec, func(c *corev1.Container) {
		for _, e := range c.EnvFrom {
			if e.ConfigMapRef != nil {
				v(e.ConfigMapRef.Name)
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
				v(e.ValueFrom.ConfigMapKeyRef.Name)
			}
		}
	})
	for i := range pod.Spec.Volumes {
		s := &pod.Spec.Volumes[i].VolumeSource
		switch {
		case s.Projected != nil:
			for _, p := range s.Projected.Sources {
				if p.ConfigMap != nil {
					v(p.ConfigMap.Name)
				}
			}
		case s.ConfigMap != nil:
			v(s.ConfigMap.Name)
		}
	}
}

func nonEmpty(visit func(string)) func(string) {
	return func(name string) {
		if name != "" {
			visit(name)
		}
	}
}

// Kinds that are no references of pods: a pod itself, and the kinds
// svcplane does not serve, which nothing leads from.
const (
	kindPod kind = iota + 100
	kindUnrelated
)

// VisitSecretNames calls visit with each non-empty Secret name a pod
// uses, in upstream's order (VisitPodSecretNames), repeats included.
func VisitSecretNames(pod *corev1.Pod, visit func(string)) { visitSecrets(pod, visit) }

// VisitConfigMapNames calls visit with each non-empty ConfigMap name a pod
// uses (upstream's VisitPodConfigmapNames).
func VisitConfigMapNames(pod *corev1.Pod, visit func(string)) { visitConfigMaps(pod, visit) }
