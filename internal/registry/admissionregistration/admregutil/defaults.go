package admregutil

import (
	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// defaultTimeoutSeconds is a webhook's timeout when none is given.
const defaultTimeoutSeconds = 10

// DefaultValidatingWebhookConfiguration fills in upstream's defaults.
func DefaultValidatingWebhookConfiguration(c *v1.ValidatingWebhookConfiguration) {
	for i := range c.Webhooks {
		h := &c.Webhooks[i]
		defaultWebhook(&h.FailurePolicy, &h.MatchPolicy, &h.NamespaceSelector, &h.ObjectSelector, &h.TimeoutSeconds)
		defaultRules(h.Rules)
		defaultClientConfig(&h.ClientConfig)
	}
}

// DefaultMutatingWebhookConfiguration fills in upstream's defaults
// (reinvocationPolicy Never besides the validating webhook's).
func DefaultMutatingWebhookConfiguration(c *v1.MutatingWebhookConfiguration) {
	for i := range c.Webhooks {
		h := &c.Webhooks[i]
		defaultWebhook(&h.FailurePolicy, &h.MatchPolicy, &h.NamespaceSelector, &h.ObjectSelector, &h.TimeoutSeconds)
		if h.ReinvocationPolicy == nil {
			h.ReinvocationPolicy = ptr.To(v1.NeverReinvocationPolicy)
		}
		defaultRules(h.Rules)
		defaultClientConfig(&h.ClientConfig)
	}
}

func defaultWebhook(fp **v1.FailurePolicyType, mp **v1.MatchPolicyType, ns, obj **metav1.LabelSelector, timeout **int32) {
	if *fp == nil {
		*fp = ptr.To(v1.Fail)
	}
	if *mp == nil {
		*mp = ptr.To(v1.Equivalent)
	}
	if *ns == nil {
		*ns = &metav1.LabelSelector{}
	}
	if *obj == nil {
		*obj = &metav1.LabelSelector{}
	}
	if *timeout == nil {
		*timeout = ptr.To[int32](defaultTimeoutSeconds)
	}
}

func defaultRules(rules []v1.RuleWithOperations) {
	for i := range rules {
		if rules[i].Scope == nil {
			rules[i].Scope = ptr.To(v1.AllScopes)
		}
	}
}

func defaultClientConfig(cc *v1.WebhookClientConfig) {
	if cc.Service != nil && cc.Service.Port == nil {
		cc.Service.Port = ptr.To[int32](443)
	}
}

// DefaultValidatingAdmissionPolicy fills in upstream's defaults.
func DefaultValidatingAdmissionPolicy(p *v1.ValidatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		p.Spec.FailurePolicy = ptr.To(v1.Fail)
	}
	defaultMatchResources(p.Spec.MatchConstraints)
}

// DefaultValidatingAdmissionPolicyBinding fills in upstream's defaults.
func DefaultValidatingAdmissionPolicyBinding(b *v1.ValidatingAdmissionPolicyBinding) {
	defaultMatchResources(b.Spec.MatchResources)
}

// DefaultMutatingAdmissionPolicy fills in upstream's defaults.
func DefaultMutatingAdmissionPolicy(p *v1.MutatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		p.Spec.FailurePolicy = ptr.To(v1.Fail)
	}
	defaultMatchResources(p.Spec.MatchConstraints)
}

// DefaultMutatingAdmissionPolicyBinding fills in upstream's defaults.
func DefaultMutatingAdmissionPolicyBinding(b *v1.MutatingAdmissionPolicyBinding) {
	defaultMatchResources(b.Spec.MatchResources)
}

func defaultMatchResources(m *v1.MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		m.MatchPolicy = ptr.To(v1.Equivalent)
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	for i := range m.ResourceRules {
		if m.ResourceRules[i].Scope == nil {
			m.ResourceRules[i].Scope = ptr.To(v1.AllScopes)
		}
	}
	for i := range m.ExcludeResourceRules {
		if m.ExcludeResourceRules[i].Scope == nil {
			m.ExcludeResourceRules[i].Scope = ptr.To(v1.AllScopes)
		}
	}
}
