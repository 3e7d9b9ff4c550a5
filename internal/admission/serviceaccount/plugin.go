package serviceaccount

import (
	"context"
	"fmt"
	"io"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/utils/clock"
)

// PluginName is the plugin's name in --enable-admission-plugins.
const PluginName = "ServiceAccount"

// DefaultServiceAccountName is the ServiceAccount of a pod that names none.
const DefaultServiceAccountName = "default"

// Register adds the plugin to plugins.
func Register(plugins *admission.Plugins) {
	plugins.Register(PluginName, func(io.Reader) (admission.Interface, error) { return New(), nil })
}

// Plugin is the ServiceAccount admission plugin.
type Plugin struct {
	*admission.Handler
	// LimitSecretReferences makes every ServiceAccount enforce its
	// mountable secrets (upstream leaves it off; the annotation turns it
	// on per ServiceAccount).
	LimitSecretReferences bool
	// MountServiceAccountToken adds the kube-api-access volume (on, as
	// upstream).
	MountServiceAccountToken bool

	client          kubernetes.Interface
	serviceAccounts corelisters.ServiceAccountLister
	clock           clock.Clock
	generateName    func(base string) string
}

var (
	_ admission.MutationInterface   = (*Plugin)(nil)
	_ admission.ValidationInterface = (*Plugin)(nil)
)

// New returns the plugin; it needs SetExternalKubeClientSet and
// SetExternalKubeInformerFactory before use.
func New() *Plugin {
	return &Plugin{
		Handler:                  admission.NewHandler(admission.Create, admission.Update),
		MountServiceAccountToken: true,
		clock:                    clock.RealClock{},
		generateName:             names.SimpleNameGenerator.GenerateName,
	}
}

// SetExternalKubeClientSet takes the client of the live look-ups.
func (p *Plugin) SetExternalKubeClientSet(c kubernetes.Interface) { p.client = c }

// SetExternalKubeInformerFactory takes the ServiceAccount lister.
func (p *Plugin) SetExternalKubeInformerFactory(f informers.SharedInformerFactory) {
	i := f.Core().V1().ServiceAccounts()
	p.serviceAccounts = i.Lister()
	p.SetReadyFunc(i.Informer().HasSynced)
}

// ValidateInitialization reports a missing client or lister, with
// upstream's messages.
func (p *Plugin) ValidateInitialization() error {
	if p.client == nil {
		return fmt.Errorf("missing client")
	}
	if p.serviceAccounts == nil {
		return fmt.Errorf("missing serviceAccountLister")
	}
	return nil
}

var podResource = schema.GroupResource{Resource: "pods"}

// podOf returns the pod of a request the plugin looks at: pods and
// pods/ephemeralcontainers with a Pod object.
func podOf(a admission.Attributes) (*corev1.Pod, bool) {
	if a.GetResource().GroupResource() != podResource || (a.GetSubresource() != "" && a.GetSubresource() != "ephemeralcontainers") {
		return nil, false
	}
	pod, ok := a.GetObject().(*corev1.Pod)
	return pod, ok && pod != nil
}

func isMirrorPod(pod *corev1.Pod) bool {
	_, ok := pod.Annotations[corev1.MirrorPodAnnotationKey]
	return ok
}

// Admit fills in a created pod's ServiceAccount, its token volume and
// mounts and its imagePullSecrets, then validates it.
func (p *Plugin) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	pod, ok := podOf(a)
	if !ok || a.GetOperation() != admission.Create {
		return nil
	}
	// A mirror pod's spec must stay the kubelet's: no changes, only the
	// checks.
	if isMirrorPod(pod) {
		return p.Validate(ctx, a, o)
	}
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = DefaultServiceAccountName
	}
	sa, err := p.getServiceAccount(ctx, a.GetNamespace(), pod.Spec.ServiceAccountName)
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("error looking up service account %s/%s: %w", a.GetNamespace(), pod.Spec.ServiceAccountName, err))
	}
	if p.MountServiceAccountToken && shouldAutomount(sa, pod) {
		p.mountServiceAccountToken(pod)
	}
	if len(pod.Spec.ImagePullSecrets) == 0 {
		pod.Spec.ImagePullSecrets = make([]corev1.LocalObjectReference, len(sa.ImagePullSecrets))
		for i, s := range sa.ImagePullSecrets {
			pod.Spec.ImagePullSecrets[i].Name = s.Name
		}
	}
	return p.Validate(ctx, a, o)
}
