package serviceaccount

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/admission"
)

// EnforceMountableSecretsAnnotation set to "true" on a ServiceAccount lets
// its pods use only the Secrets it lists.
const EnforceMountableSecretsAnnotation = "kubernetes.io/enforce-mountable-secrets"

// enforceMountableSecrets: LimitSecretReferences for all, else the
// ServiceAccount's annotation.
func (p *Plugin) enforceMountableSecrets(sa *corev1.ServiceAccount) bool {
	if p.LimitSecretReferences {
		return true
	}
	if v, ok := sa.Annotations[EnforceMountableSecretsAnnotation]; ok {
		enforce, _ := strconv.ParseBool(v)
		return enforce
	}
	return false
}

func mountableSecrets(sa *corev1.ServiceAccount) sets.Set[string] {
	s := sets.New[string]()
	for _, r := range sa.Secrets {
		s.Insert(r.Name)
	}
	return s
}

// limitSecretReferences refuses the first Secret of the pod's secret
// volumes, init and regular containers' env and envFrom and
// imagePullSecrets that sa does not list (upstream's order and messages).
func limitSecretReferences(sa *corev1.ServiceAccount, pod *corev1.Pod) error {
	mountable := mountableSecrets(sa)
	for _, v := range pod.Spec.Volumes {
		if v.Secret == nil {
			continue
		}
		if name := v.Secret.SecretName; !mountable.Has(name) {
			return fmt.Errorf("volume with secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", name, sa.Name)
		}
	}
	for _, c := range pod.Spec.InitContainers {
		if err := containerSecrets("init container", &c, mountable, sa.Name); err != nil {
			return err
		}
	}
	for _, c := range pod.Spec.Containers {
		if err := containerSecrets("container", &c, mountable, sa.Name); err != nil {
			return err
		}
	}
	pullSecrets := sets.New[string]()
	for _, r := range sa.ImagePullSecrets {
		pullSecrets.Insert(r.Name)
	}
	for i, r := range pod.Spec.ImagePullSecrets {
		if !pullSecrets.Has(r.Name) {
			return fmt.Errorf(`imagePullSecrets[%d].name="%s" is not allowed because service account %s does not reference that imagePullSecret`, i, r.Name, sa.Name)
		}
	}
	return nil
}

// containerSecrets refuses the first env or envFrom Secret of a container
// that is not mountable; kind ("container", "init container", "ephemeral
// container") starts the message.
func containerSecrets(kind string, c *corev1.Container, mountable sets.Set[string], saName string) error {
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && !mountable.Has(e.ValueFrom.SecretKeyRef.Name) {
			return fmt.Errorf("%s %s with envVar %s referencing secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", kind, c.Name, e.Name, e.ValueFrom.SecretKeyRef.Name, saName)
		}
	}
	for _, e := range c.EnvFrom {
		if e.SecretRef != nil && !mountable.Has(e.SecretRef.Name) {
			return fmt.Errorf("%s %s with envFrom referencing secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", kind, c.Name, e.SecretRef.Name, saName)
		}
	}
	return nil
}

// limitEphemeralContainerSecretReferences checks an update of a pod's
// ephemeral containers: the pod's ServiceAccount exists and, when it
// enforces mountable secrets, lists the ephemeral containers' Secrets.
// Upstream returns that last refusal unwrapped (no Forbidden); so do we.
func (p *Plugin) limitEphemeralContainerSecretReferences(ctx context.Context, pod *corev1.Pod, a admission.Attributes) error {
	if pod.Spec.ServiceAccountName == "" {
		return admission.NewForbidden(a, fmt.Errorf("no service account specified for pod %s/%s", a.GetNamespace(), pod.Name))
	}
	sa, err := p.getServiceAccount(ctx, a.GetNamespace(), pod.Spec.ServiceAccountName)
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("error looking up service account %s/%s: %w", a.GetNamespace(), pod.Spec.ServiceAccountName, err))
	}
	if !p.enforceMountableSecrets(sa) {
		return nil
	}
	mountable := mountableSecrets(sa)
	for i := range pod.Spec.EphemeralContainers {
		c := corev1.Container(pod.Spec.EphemeralContainers[i].EphemeralContainerCommon)
		if err := containerSecrets("ephemeral container", &c, mountable, sa.Name); err != nil {
			return err
		}
	}
	return nil
}
