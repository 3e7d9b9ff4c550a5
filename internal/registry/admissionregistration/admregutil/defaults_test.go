package admregutil

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestDefaultWebhooks(t *testing.T) {
	in := &v1.MutatingWebhookConfiguration{Webhooks: []v1.MutatingWebhook{{
		ClientConfig: v1.WebhookClientConfig{Service: &v1.ServiceReference{Namespace: "ns", Name: "svc"}},
		Rules:        []v1.RuleWithOperations{{}},
	}, {
		FailurePolicy: ptr.To(v1.Ignore), TimeoutSeconds: ptr.To[int32](3), ReinvocationPolicy: ptr.To(v1.IfNeededReinvocationPolicy),
		ClientConfig: v1.WebhookClientConfig{Service: &v1.ServiceReference{Port: ptr.To[int32](8443)}},
	}}}
	DefaultMutatingWebhookConfiguration(in)
	want := v1.MutatingWebhook{
		FailurePolicy: ptr.To(v1.Fail), MatchPolicy: ptr.To(v1.Equivalent),
		NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
		TimeoutSeconds: ptr.To[int32](10), ReinvocationPolicy: ptr.To(v1.NeverReinvocationPolicy),
		ClientConfig: v1.WebhookClientConfig{Service: &v1.ServiceReference{Namespace: "ns", Name: "svc", Port: ptr.To[int32](443)}},
		Rules:        []v1.RuleWithOperations{{Rule: v1.Rule{Scope: ptr.To(v1.AllScopes)}}},
	}
	if !reflect.DeepEqual(in.Webhooks[0], want) {
		t.Errorf("defaults:\n got  %+v\n want %+v", in.Webhooks[0], want)
	}
	set := in.Webhooks[1]
	if *set.FailurePolicy != v1.Ignore || *set.TimeoutSeconds != 3 || *set.ReinvocationPolicy != v1.IfNeededReinvocationPolicy || *set.ClientConfig.Service.Port != 8443 {
		t.Errorf("values given were overwritten: %+v", set)
	}
}

func TestDefaultPolicy(t *testing.T) {
	p := &v1.ValidatingAdmissionPolicy{Spec: v1.ValidatingAdmissionPolicySpec{MatchConstraints: &v1.MatchResources{
		ResourceRules: []v1.NamedRuleWithOperations{{}}, ExcludeResourceRules: []v1.NamedRuleWithOperations{{}}}}}
	DefaultValidatingAdmissionPolicy(p)
	mc := p.Spec.MatchConstraints
	if *p.Spec.FailurePolicy != v1.Fail || *mc.MatchPolicy != v1.Equivalent || mc.NamespaceSelector == nil || mc.ObjectSelector == nil ||
		*mc.ResourceRules[0].Scope != v1.AllScopes || *mc.ExcludeResourceRules[0].Scope != v1.AllScopes {
		t.Errorf("defaults: %+v", p.Spec)
	}
	b := &v1.ValidatingAdmissionPolicyBinding{}
	DefaultValidatingAdmissionPolicyBinding(b)
	if b.Spec.MatchResources != nil {
		t.Errorf("a binding without matchResources got %+v", b.Spec.MatchResources)
	}
}
