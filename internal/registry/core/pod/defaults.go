package pod

import (
	"github.com/distribution/reference"
	corev1 "k8s.io/api/core/v1"
)

// DefaultPod fills in what upstream's v1 defaulting gives a Pod (and not
// a pod template): the spec's defaults, requests from limits, pod-level
// resources, enable service links, host ports under hostNetwork, and a
// negative grace period made 1 (the v1 Pod conversion).
func DefaultPod(p *corev1.Pod) {
	DefaultPodSpec(&p.Spec)
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range cs {
			defaultRequestsFromLimits(&cs[i].Resources)
		}
	}
	defaultPodLevelResources(p)
	if p.Spec.EnableServiceLinks == nil {
		t := corev1.DefaultEnableServiceLinks
		p.Spec.EnableServiceLinks = &t
	}
	if p.Spec.HostNetwork {
		defaultHostNetworkPorts(p.Spec.InitContainers)
		defaultHostNetworkPorts(p.Spec.Containers)
	}
	// A Pod's negative grace period is 1 (upstream's v1 Pod conversion).
	if g := p.Spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		one := int64(1)
		p.Spec.TerminationGracePeriodSeconds = &one
	}
	DefaultPodIPs(&p.Status)
}

// DefaultPodSpec fills in the defaults upstream's v1 defaulting gives
// every pod spec, a Pod's or a template's (SetDefaults_PodSpec and those
// of the types inside: containers, probes, volumes, field selectors,
// resource lists), and the serviceAccount alias of its conversion.
func DefaultPodSpec(spec *corev1.PodSpec) {
	if spec.DNSPolicy == "" {
		spec.DNSPolicy = corev1.DNSClusterFirst
	}
	if spec.RestartPolicy == "" {
		spec.RestartPolicy = corev1.RestartPolicyAlways
	}
	if spec.SecurityContext == nil {
		spec.SecurityContext = &corev1.PodSecurityContext{}
	}
	if spec.TerminationGracePeriodSeconds == nil {
		g := int64(corev1.DefaultTerminationGracePeriodSeconds)
		spec.TerminationGracePeriodSeconds = &g
	}
	if spec.SchedulerName == "" {
		spec.SchedulerName = corev1.DefaultSchedulerName
	}
	// serviceAccount is the deprecated alias of serviceAccountName (the v1
	// conversion of every pod spec).
	if spec.ServiceAccountName == "" {
		spec.ServiceAccountName = spec.DeprecatedServiceAccount
	}
	spec.DeprecatedServiceAccount = spec.ServiceAccountName
	for i := range spec.Volumes {
		defaultVolume(&spec.Volumes[i])
	}
	for i := range spec.InitContainers {
		defaultContainer(&spec.InitContainers[i])
	}
	for i := range spec.Containers {
		defaultContainer(&spec.Containers[i])
	}
	for i := range spec.EphemeralContainers {
		defaultContainer((*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon))
	}
	RoundUpResources(spec.Overhead)
	if r := spec.Resources; r != nil {
		RoundUpResources(r.Limits)
		RoundUpResources(r.Requests)
	}
}

func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = corev1.PullIfNotPresent
		if imageTag(c.Image) == "latest" {
			c.ImagePullPolicy = corev1.PullAlways
		}
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	for i := range c.Env {
		if vf := c.Env[i].ValueFrom; vf != nil {
			defaultFieldRef(vf.FieldRef)
		}
	}
	for _, pr := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		defaultProbe(pr)
	}
	if lc := c.Lifecycle; lc != nil {
		for _, h := range []*corev1.LifecycleHandler{lc.PostStart, lc.PreStop} {
			if h != nil {
				defaultHTTPGet(h.HTTPGet)
			}
		}
	}
	RoundUpResources(c.Resources.Limits)
	RoundUpResources(c.Resources.Requests)
}

// defaultProbe fills a probe's zero numbers and its handler's defaults as
// upstream's SetDefaults_Probe, SetDefaults_HTTPGetAction and the gRPC
// service default ("").
func defaultProbe(pr *corev1.Probe) {
	if pr == nil {
		return
	}
	for _, f := range []struct {
		v   *int32
		def int32
	}{{&pr.TimeoutSeconds, 1}, {&pr.PeriodSeconds, 10}, {&pr.SuccessThreshold, 1}, {&pr.FailureThreshold, 3}} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	defaultHTTPGet(pr.HTTPGet)
	if pr.GRPC != nil && pr.GRPC.Service == nil {
		empty := ""
		pr.GRPC.Service = &empty
	}
}

func defaultHTTPGet(h *corev1.HTTPGetAction) {
	if h == nil {
		return
	}
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

// defaultFieldRef: a field selector's apiVersion defaults to v1.
func defaultFieldRef(f *corev1.ObjectFieldSelector) {
	if f != nil && f.APIVersion == "" {
		f.APIVersion = "v1"
	}
}

// defaultVolume gives a volume without a source an emptyDir, and the
// sources their default modes, token expiry and hostPath type.
func defaultVolume(v *corev1.Volume) {
	s := &v.VolumeSource
	if (*s == corev1.VolumeSource{}) {
		s.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	mode := func(m **int32, def int32) {
		if *m == nil {
			*m = &def
		}
	}
	if s.Secret != nil {
		mode(&s.Secret.DefaultMode, corev1.SecretVolumeSourceDefaultMode)
	}
	if s.ConfigMap != nil {
		mode(&s.ConfigMap.DefaultMode, corev1.ConfigMapVolumeSourceDefaultMode)
	}
	if s.DownwardAPI != nil {
		mode(&s.DownwardAPI.DefaultMode, corev1.DownwardAPIVolumeSourceDefaultMode)
		for i := range s.DownwardAPI.Items {
			defaultFieldRef(s.DownwardAPI.Items[i].FieldRef)
		}
	}
	if s.Projected != nil {
		mode(&s.Projected.DefaultMode, corev1.ProjectedVolumeSourceDefaultMode)
		for i := range s.Projected.Sources {
			src := &s.Projected.Sources[i]
			if src.ServiceAccountToken != nil && src.ServiceAccountToken.ExpirationSeconds == nil {
				hour := int64(3600)
				src.ServiceAccountToken.ExpirationSeconds = &hour
			}
			if src.DownwardAPI != nil {
				for j := range src.DownwardAPI.Items {
					defaultFieldRef(src.DownwardAPI.Items[j].FieldRef)
				}
			}
		}
	}
	if s.HostPath != nil && s.HostPath.Type == nil {
		unset := corev1.HostPathUnset
		s.HostPath.Type = &unset
	}
	if s.EmptyDir != nil && s.EmptyDir.SizeLimit != nil {
		s.EmptyDir.SizeLimit.RoundUp(-3)
	}
}

// defaultRequestsFromLimits: a limit without a request is also the
// request (on Pods only, not templates).
func defaultRequestsFromLimits(r *corev1.ResourceRequirements) {
	if r.Limits == nil {
		return
	}
	if r.Requests == nil {
		r.Requests = corev1.ResourceList{}
	}
	for name, q := range r.Limits {
		if _, ok := r.Requests[name]; !ok {
			r.Requests[name] = q.DeepCopy()
		}
	}
}

// RoundUpResources rounds quantities up to milli units, as upstream's
// SetDefaults_ResourceList.
func RoundUpResources(l corev1.ResourceList) {
	for name, q := range l {
		q.RoundUp(-3)
		l[name] = q
	}
}

func defaultHostNetworkPorts(cs []corev1.Container) {
	for i := range cs {
		for j := range cs[i].Ports {
			if cs[i].Ports[j].HostPort == 0 {
				cs[i].Ports[j].HostPort = cs[i].Ports[j].ContainerPort
			}
		}
	}
}

// imageTag returns the tag of an image reference as upstream's
// ParseImageName: "latest" when it has neither tag nor digest, "" when it
// has only a digest or does not parse.
func imageTag(image string) string {
	named, err := reference.ParseNormalizedNamed(image)
	if err != nil {
		return ""
	}
	if t, ok := named.(reference.Tagged); ok {
		return t.Tag()
	}
	if _, ok := named.(reference.Digested); ok {
		return ""
	}
	return "latest"
}

// DefaultPodIPs keeps status.podIP and podIPs in step as upstream's v1
// conversion does: podIP wins when the two differ, podIPs has podIP when
// a client set only the singular (kwok does), and podIP is podIPs' first.
func DefaultPodIPs(s *corev1.PodStatus) {
	if s.PodIP != "" && (len(s.PodIPs) == 0 || s.PodIPs[0].IP != s.PodIP) {
		s.PodIPs = []corev1.PodIP{{IP: s.PodIP}}
	}
	if len(s.PodIPs) > 0 {
		s.PodIP = s.PodIPs[0].IP
	}
}
