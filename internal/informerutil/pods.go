package informerutil

import (
	corev1 "k8s.io/api/core/v1"
)

// ForControllers is the transform of the controller manager's shared
// informers: DropManagedFields, and for pods TrimPodForControllers.
func ForControllers(obj any) (any, error) {
	obj, err := DropManagedFields(obj)
	if err != nil {
		return obj, err
	}
	return TrimPodForControllers(obj)
}

// TrimPodForControllers drops from a pod what none of svcplane's
// controllers reads: its volumes and, of each container, the command,
// arguments, working directory, environment, volume mounts and devices,
// probes, lifecycle hooks, termination message settings and security
// context. It keeps the rest of the spec (node name, scheduling fields,
// the containers' names, images, ports — endpointslice's named target
// ports — resources and restart policies — the scheduler's and
// resourcehelper.PodRequests' requests), the metadata and the status.
// Controllers write pods only by patch, binding and the status subresource
// (whose strategy keeps the stored spec), never by an update of the
// cached object, so the trimmed fields are never written back; a
// controller that needs one of them must read the pod from the API or
// this function must keep it. On a typical pod it is the service account
// volume (kube-api-access: a token, the cluster CA ConfigMap, the
// namespace) and the mounts: ~1 KB of the informer's copy a pod.
func TrimPodForControllers(obj any) (any, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	pod.Spec.Volumes = nil
	for i := range pod.Spec.InitContainers {
		trimContainer(&pod.Spec.InitContainers[i])
	}
	for i := range pod.Spec.Containers {
		trimContainer(&pod.Spec.Containers[i])
	}
	for i := range pod.Spec.EphemeralContainers {
		trimContainer((*corev1.Container)(&pod.Spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	return pod, nil
}

func trimContainer(c *corev1.Container) {
	c.Command, c.Args, c.WorkingDir = nil, nil, ""
	c.EnvFrom, c.Env = nil, nil
	c.VolumeMounts, c.VolumeDevices = nil, nil
	c.LivenessProbe, c.ReadinessProbe, c.StartupProbe, c.Lifecycle = nil, nil, nil, nil
	c.TerminationMessagePath, c.TerminationMessagePolicy = "", ""
	c.SecurityContext = nil
}
