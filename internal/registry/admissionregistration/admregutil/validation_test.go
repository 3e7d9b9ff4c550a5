package admregutil

import (
	"reflect"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// The full corpus against upstream's validation is test/drift's; these
// cases pin the behaviour each check is for.

func short(errs field.ErrorList) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Field+": "+string(e.Type))
	}
	return out
}

func hook() v1.ValidatingWebhook {
	return v1.ValidatingWebhook{Name: "a.example.com", ClientConfig: v1.WebhookClientConfig{URL: ptr.To("https://example.com")},
		SideEffects: ptr.To(v1.SideEffectClassNone), AdmissionReviewVersions: []string{"v1"}}
}

func TestValidateWebhookConfiguration(t *testing.T) {
	cases := map[string]struct {
		change func(h *v1.ValidatingWebhook)
		want   []string
	}{
		"valid":        {func(*v1.ValidatingWebhook) {}, []string{}},
		"side effects": {func(h *v1.ValidatingWebhook) { h.SideEffects = ptr.To(v1.SideEffectClassSome) }, []string{"webhooks[0].sideEffects: FieldValueNotSupported"}},
		"http":         {func(h *v1.ValidatingWebhook) { h.ClientConfig.URL = ptr.To("http://x") }, []string{"webhooks[0].clientConfig.url: FieldValueInvalid"}},
		// Upstream hands the service name over as the namespace: a
		// missing name is reported at service.namespace.
		"service without name": {func(h *v1.ValidatingWebhook) {
			h.ClientConfig = v1.WebhookClientConfig{Service: &v1.ServiceReference{Namespace: "ns"}}
		}, []string{"webhooks[0].clientConfig.service.namespace: FieldValueRequired"}},
		"match condition does not compile": {func(h *v1.ValidatingWebhook) {
			h.MatchConditions = []v1.MatchCondition{{Name: "c", Expression: "request.namespace =="}}
		}, []string{"webhooks[0].matchConditions[0].expression: FieldValueInvalid"}},
		"no params in a webhook": {func(h *v1.ValidatingWebhook) {
			h.MatchConditions = []v1.MatchCondition{{Name: "c", Expression: "params.x == 1"}}
		}, []string{"webhooks[0].matchConditions[0].expression: FieldValueInvalid"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			h := hook()
			tc.change(&h)
			got := short(ValidateValidatingWebhookConfiguration(&v1.ValidatingWebhookConfiguration{Webhooks: []v1.ValidatingWebhook{h}}))
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestValidateWebhookUpdate: what the stored object already had wrong
// stays acceptable; new wrongs are refused.
func TestValidateWebhookUpdate(t *testing.T) {
	some := hook()
	some.SideEffects = ptr.To(v1.SideEffectClassSome)
	cfg := func(h ...v1.ValidatingWebhook) *v1.ValidatingWebhookConfiguration {
		return &v1.ValidatingWebhookConfiguration{Webhooks: h}
	}
	if errs := ValidateValidatingWebhookConfigurationUpdate(cfg(some), cfg(some)); len(errs) != 0 {
		t.Errorf("kept side effects: %v", errs)
	}
	if errs := ValidateValidatingWebhookConfigurationUpdate(cfg(some), cfg(hook())); len(errs) != 1 {
		t.Errorf("new side effects: %v, want one error", errs)
	}
	if errs := ValidateValidatingWebhookConfigurationUpdate(cfg(hook(), hook()), cfg(hook(), hook())); len(errs) != 0 {
		t.Errorf("kept duplicate names: %v", errs)
	}
	if errs := ValidateValidatingWebhookConfigurationUpdate(cfg(hook(), hook()), cfg(hook())); len(errs) != 1 {
		t.Errorf("new duplicate names: %v, want one error", errs)
	}
}

func policy(validations ...v1.Validation) *v1.ValidatingAdmissionPolicy {
	return &v1.ValidatingAdmissionPolicy{Spec: v1.ValidatingAdmissionPolicySpec{
		FailurePolicy: ptr.To(v1.Fail),
		MatchConstraints: &v1.MatchResources{MatchPolicy: ptr.To(v1.Equivalent), NamespaceSelector: &metav1.LabelSelector{}, ObjectSelector: &metav1.LabelSelector{},
			ResourceRules: []v1.NamedRuleWithOperations{{RuleWithOperations: v1.RuleWithOperations{Operations: []v1.OperationType{v1.Create},
				Rule: v1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}}},
		Validations: validations,
	}}
}

func TestValidatePolicyExpressions(t *testing.T) {
	cases := map[string]struct {
		v    v1.Validation
		want []string
	}{
		"compiles":          {v1.Validation{Expression: "object.spec.replicas <= 5"}, []string{}},
		"syntax error":      {v1.Validation{Expression: "object.spec.replicas <="}, []string{"spec.validations[0].expression: FieldValueInvalid"}},
		"not a bool":        {v1.Validation{Expression: "'x'"}, []string{"spec.validations[0].expression: FieldValueInvalid"}},
		"params, no kind":   {v1.Validation{Expression: "params.x == 1"}, []string{"spec.validations[0].expression: FieldValueInvalid"}},
		"message lines":     {v1.Validation{Expression: "true", Message: "a\nb"}, []string{"spec.validations[0].message: FieldValueInvalid"}},
		"message expr bool": {v1.Validation{Expression: "true", MessageExpression: "1 == 1"}, []string{"spec.validations[0].messageExpression: FieldValueInvalid"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if got := short(ValidateValidatingAdmissionPolicy(policy(tc.v))); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestValidatePolicyUpdateStoredExpression: an expression the stored
// policy had compiles in the stored environment, one new to it in the new
// environment.
func TestValidatePolicyUpdateStoredExpression(t *testing.T) {
	bad := policy(v1.Validation{Expression: "1 +"})
	if errs := ValidateValidatingAdmissionPolicyUpdate(bad, bad); len(errs) != 1 {
		t.Errorf("a bad stored expression is still refused on update (upstream does too): %v", errs)
	}
	good := policy(v1.Validation{Expression: "true"})
	if errs := ValidateValidatingAdmissionPolicyUpdate(good, bad); len(errs) != 0 {
		t.Errorf("fixing the expression: %v", errs)
	}
}

func TestValidateBinding(t *testing.T) {
	got := short(ValidateValidatingAdmissionPolicyBinding(&v1.ValidatingAdmissionPolicyBinding{Spec: v1.ValidatingAdmissionPolicyBindingSpec{
		PolicyName: "p", ValidationActions: []v1.ValidationAction{v1.Deny, v1.Warn},
		ParamRef: &v1.ParamRef{}}}))
	want := []string{"spec.paramRef: FieldValueRequired", "spec.paramRef.parameterNotFoundAction: FieldValueRequired", "spec.validationActions: FieldValueInvalid"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
