package serviceaccount

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apiserver/pkg/admission"

	"github.com/svcplane/svcplane/internal/auth/node"
)

// Validate checks a created pod (its ServiceAccount exists and, when it
// enforces mountable secrets, lends the pod's Secrets; a mirror pod refers
// to none) and an update of its ephemeral containers.
func (p *Plugin) Validate(ctx context.Context, a admission.Attributes, _ admission.ObjectInterfaces) error {
	pod, ok := podOf(a)
	if !ok {
		return nil
	}
	if a.GetOperation() == admission.Update && a.GetSubresource() == "ephemeralcontainers" {
		return p.limitEphemeralContainerSecretReferences(ctx, pod, a)
	}
	if a.GetOperation() != admission.Create {
		return nil
	}
	if isMirrorPod(pod) {
		if err := validateMirrorPod(pod); err != nil {
			return admission.NewForbidden(a, err)
		}
		return nil
	}
	if pod.Spec.ServiceAccountName == "" {
		return admission.NewForbidden(a, fmt.Errorf("no service account specified for pod %s/%s", a.GetNamespace(), pod.Name))
	}
	sa, err := p.getServiceAccount(ctx, a.GetNamespace(), pod.Spec.ServiceAccountName)
	if err != nil {
		return admission.NewForbidden(a, fmt.Errorf("error looking up service account %s/%s: %v", a.GetNamespace(), pod.Spec.ServiceAccountName, err))
	}
	if p.enforceMountableSecrets(sa) {
		if err := limitSecretReferences(sa, pod); err != nil {
			return admission.NewForbidden(a, err)
		}
	}
	return nil
}

// validateMirrorPod: a mirror pod refers to no ServiceAccount, no Secret
// and asks for no ServiceAccount token.
func validateMirrorPod(pod *corev1.Pod) error {
	if pod.Spec.ServiceAccountName != "" {
		return fmt.Errorf("a mirror pod may not reference service accounts")
	}
	hasSecrets := false
	node.VisitSecretNames(pod, func(string) { hasSecrets = true })
	if hasSecrets {
		return fmt.Errorf("a mirror pod may not reference secrets")
	}
	for _, v := range pod.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, s := range v.Projected.Sources {
			if s.ServiceAccountToken != nil {
				return fmt.Errorf("a mirror pod may not use ServiceAccountToken volume projections")
			}
		}
	}
	return nil
}
