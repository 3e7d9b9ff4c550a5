package pod

import (
	corev1 "k8s.io/api/core/v1"
)

// ComputeQOS is a pod's QoS class as upstream's ComputePodQOS: from the
// positive cpu and memory requests and limits of its containers (init
// ones included), or of the pod-level resources when set.
func ComputeQOS(spec *corev1.PodSpec) corev1.PodQOSClass {
	requests, limits := corev1.ResourceList{}, corev1.ResourceList{}
	guaranteed := true
	add := func(r corev1.ResourceRequirements) {
		addQOSResources(requests, r.Requests)
		addQOSResources(limits, r.Limits)
		if l := r.Limits; !(positive(l, corev1.ResourceCPU) && positive(l, corev1.ResourceMemory)) {
			guaranteed = false
		}
	}
	if spec.Resources != nil {
		add(*spec.Resources)
	} else {
		for _, cs := range [][]corev1.Container{spec.Containers, spec.InitContainers} {
			for _, c := range cs {
				add(c.Resources)
			}
		}
	}
	if len(requests) == 0 && len(limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	if guaranteed {
		for name, req := range requests {
			if lim, ok := limits[name]; !ok || lim.Cmp(req) != 0 {
				guaranteed = false
				break
			}
		}
	}
	if guaranteed && len(requests) == len(limits) {
		return corev1.PodQOSGuaranteed
	}
	return corev1.PodQOSBurstable
}

func isQOSResource(name corev1.ResourceName) bool {
	return name == corev1.ResourceCPU || name == corev1.ResourceMemory
}

func positive(l corev1.ResourceList, name corev1.ResourceName) bool {
	q, ok := l[name]
	return ok && q.Sign() == 1
}

// addQOSResources sums the positive cpu and memory quantities of from
// into to.
func addQOSResources(to, from corev1.ResourceList) {
	for name, q := range from {
		if !isQOSResource(name) || q.Sign() != 1 {
			continue
		}
		sum := q.DeepCopy()
		if have, ok := to[name]; ok {
			sum.Add(have)
		}
		to[name] = sum
	}
}
