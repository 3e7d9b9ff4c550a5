package drift

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"k8s.io/kubernetes/pkg/apis/admissionregistration"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	admregvalidation "k8s.io/kubernetes/pkg/apis/admissionregistration/validation"
	"k8s.io/kubernetes/pkg/kubeapiserver/admission/exclusion"
	"k8s.io/utils/ptr"

	ours "github.com/svcplane/svcplane/internal/admission/exclusion"
	"github.com/svcplane/svcplane/internal/registry/admissionregistration/mutatingadmissionpolicy"
	"github.com/svcplane/svcplane/internal/registry/admissionregistration/mutatingadmissionpolicybinding"
	"github.com/svcplane/svcplane/internal/registry/admissionregistration/mutatingwebhookconfiguration"
	"github.com/svcplane/svcplane/internal/registry/admissionregistration/validatingadmissionpolicy"
	"github.com/svcplane/svcplane/internal/registry/admissionregistration/validatingadmissionpolicybinding"
	"github.com/svcplane/svcplane/internal/registry/admissionregistration/validatingwebhookconfiguration"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// The admissionregistration cases are objects as clients send them. Each
// runs through upstream's v1 defaulting, conversion to the internal types
// and validation (pkg/apis/admissionregistration/validation) and through
// our definition (defaults, object meta, validation); the defaulted objects
// and the errors by path, type and detail must agree.

// webhookCase changes a valid validating webhook (the mutating case is the
// same webhook, with the mutating fields).
type webhookCase func(h *v1.ValidatingWebhook)

func goodWebhook() v1.ValidatingWebhook {
	return v1.ValidatingWebhook{
		Name:         "check.example.com",
		ClientConfig: v1.WebhookClientConfig{URL: ptr.To("https://example.com/check")},
		Rules: []v1.RuleWithOperations{{Operations: []v1.OperationType{v1.Create},
			Rule: v1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
		SideEffects:             ptr.To(v1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
	}
}

func webhookCases() map[string]webhookCase {
	rule := func(f func(r *v1.RuleWithOperations)) webhookCase {
		return func(h *v1.ValidatingWebhook) { f(&h.Rules[0]) }
	}
	return map[string]webhookCase{
		"valid":                     func(*v1.ValidatingWebhook) {},
		"name not qualified":        func(h *v1.ValidatingWebhook) { h.Name = "check" },
		"no name":                   func(h *v1.ValidatingWebhook) { h.Name = "" },
		"no sideEffects":            func(h *v1.ValidatingWebhook) { h.SideEffects = nil },
		"sideEffects Some":          func(h *v1.ValidatingWebhook) { h.SideEffects = ptr.To(v1.SideEffectClassSome) },
		"sideEffects bogus":         func(h *v1.ValidatingWebhook) { h.SideEffects = ptr.To(v1.SideEffectClass("Maybe")) },
		"failurePolicy bogus":       func(h *v1.ValidatingWebhook) { h.FailurePolicy = ptr.To(v1.FailurePolicyType("Sometimes")) },
		"matchPolicy bogus":         func(h *v1.ValidatingWebhook) { h.MatchPolicy = ptr.To(v1.MatchPolicyType("Loose")) },
		"timeout 0":                 func(h *v1.ValidatingWebhook) { h.TimeoutSeconds = ptr.To[int32](0) },
		"timeout 31":                func(h *v1.ValidatingWebhook) { h.TimeoutSeconds = ptr.To[int32](31) },
		"no review versions":        func(h *v1.ValidatingWebhook) { h.AdmissionReviewVersions = nil },
		"unknown review version":    func(h *v1.ValidatingWebhook) { h.AdmissionReviewVersions = []string{"v2"} },
		"duplicate review versions": func(h *v1.ValidatingWebhook) { h.AdmissionReviewVersions = []string{"v1", "v1"} },
		"bad review version":        func(h *v1.ValidatingWebhook) { h.AdmissionReviewVersions = []string{"V_1", "v1"} },
		"no client config":          func(h *v1.ValidatingWebhook) { h.ClientConfig = v1.WebhookClientConfig{} },
		"url and service": func(h *v1.ValidatingWebhook) {
			h.ClientConfig.Service = &v1.ServiceReference{Namespace: "ns", Name: "svc"}
		},
		"http url":                  func(h *v1.ValidatingWebhook) { h.ClientConfig.URL = ptr.To("http://example.com/x") },
		"url without host":          func(h *v1.ValidatingWebhook) { h.ClientConfig.URL = ptr.To("https:///x") },
		"url with user and query":   func(h *v1.ValidatingWebhook) { h.ClientConfig.URL = ptr.To("https://u:p@example.com/x?a=b#f") },
		"url that does not parse":   func(h *v1.ValidatingWebhook) { h.ClientConfig.URL = ptr.To("https://exa mple.com:x/%zz") },
		"service":                   serviceRef(&v1.ServiceReference{Namespace: "ns", Name: "svc", Path: ptr.To("/validate")}),
		"service without name":      serviceRef(&v1.ServiceReference{Namespace: "ns"}),
		"service without namespace": serviceRef(&v1.ServiceReference{Name: "svc"}),
		"service bad port":          serviceRef(&v1.ServiceReference{Namespace: "ns", Name: "svc", Port: ptr.To[int32](70000)}),
		"service bad path":          serviceRef(&v1.ServiceReference{Namespace: "ns", Name: "svc", Path: ptr.To("a//B_c/")}),
		"service path //":           serviceRef(&v1.ServiceReference{Namespace: "ns", Name: "svc", Path: ptr.To("//")}),
		"no operations":             rule(func(r *v1.RuleWithOperations) { r.Operations = nil }),
		"operations * and CREATE":   rule(func(r *v1.RuleWithOperations) { r.Operations = []v1.OperationType{"*", v1.Create} }),
		"operation bogus":           rule(func(r *v1.RuleWithOperations) { r.Operations = []v1.OperationType{"PATCH"} }),
		"no apiGroups":              rule(func(r *v1.RuleWithOperations) { r.APIGroups = nil }),
		"apiGroups * and apps":      rule(func(r *v1.RuleWithOperations) { r.APIGroups = []string{"*", "apps"} }),
		"no apiVersions":            rule(func(r *v1.RuleWithOperations) { r.APIVersions = nil }),
		"apiVersions * and empty":   rule(func(r *v1.RuleWithOperations) { r.APIVersions = []string{"*", ""} }),
		"no resources":              rule(func(r *v1.RuleWithOperations) { r.Resources = nil }),
		"empty resource":            rule(func(r *v1.RuleWithOperations) { r.Resources = []string{""} }),
		"*/* and pods":              rule(func(r *v1.RuleWithOperations) { r.Resources = []string{"*/*", "pods"} }),
		"* and pods":                rule(func(r *v1.RuleWithOperations) { r.Resources = []string{"*", "pods"} }),
		"pods and *":                rule(func(r *v1.RuleWithOperations) { r.Resources = []string{"pods", "*"} }),
		"pods/* and pods/status":    rule(func(r *v1.RuleWithOperations) { r.Resources = []string{"pods/*", "pods/status"} }),
		"*/scale and rs/scale":      rule(func(r *v1.RuleWithOperations) { r.Resources = []string{"*/scale", "replicasets/scale"} }),
		"subresources":              rule(func(r *v1.RuleWithOperations) { r.Resources = []string{"pods/status", "*/scale"} }),
		"scope bogus":               rule(func(r *v1.RuleWithOperations) { r.Scope = ptr.To(v1.ScopeType("Galaxy")) }),
		"bad namespaceSelector": func(h *v1.ValidatingWebhook) {
			h.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"bad key!": "x"}}
		},
		"bad objectSelector value": func(h *v1.ValidatingWebhook) {
			h.ObjectSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: metav1.LabelSelectorOpIn, Values: []string{"bad value!"}}}}
		},
		"match conditions": func(h *v1.ValidatingWebhook) {
			h.MatchConditions = []v1.MatchCondition{{Name: "not-kube-system", Expression: "request.namespace != 'kube-system'"}}
		},
		"match condition bad": func(h *v1.ValidatingWebhook) {
			h.MatchConditions = []v1.MatchCondition{{Name: "Bad Name!", Expression: "request.namespace =="},
				{Name: "", Expression: "  "}, {Name: "a", Expression: "params.x == 1"}, {Name: "a", Expression: "'x'"}}
		},
		"too many match conditions": func(h *v1.ValidatingWebhook) {
			for i := 0; i < 65; i++ {
				h.MatchConditions = append(h.MatchConditions, v1.MatchCondition{Name: "c" + strings.Repeat("x", i), Expression: "true"})
			}
		},
	}
}

func serviceRef(s *v1.ServiceReference) webhookCase {
	return func(h *v1.ValidatingWebhook) { h.ClientConfig = v1.WebhookClientConfig{Service: s} }
}

func toMutating(h v1.ValidatingWebhook) v1.MutatingWebhook {
	return v1.MutatingWebhook{Name: h.Name, ClientConfig: h.ClientConfig, Rules: h.Rules, FailurePolicy: h.FailurePolicy,
		MatchPolicy: h.MatchPolicy, NamespaceSelector: h.NamespaceSelector, ObjectSelector: h.ObjectSelector,
		SideEffects: h.SideEffects, TimeoutSeconds: h.TimeoutSeconds, AdmissionReviewVersions: h.AdmissionReviewVersions,
		MatchConditions: h.MatchConditions}
}

// sameDefaults defaults theirs with upstream's scheme and ours with def and
// compares the results.
func sameDefaults(t *testing.T, def *resource.Definition, theirs, ours runtime.Object) {
	t.Helper()
	legacyscheme.Scheme.Default(theirs)
	def.Default(ours)
	if !reflect.DeepEqual(theirs, ours) {
		t.Errorf("defaults:\n upstream %+v\n ours     %+v", theirs, ours)
	}
}

func TestAdmissionWebhookConfigurationsMatchUpstream(t *testing.T) {
	vdef, mdef := validatingwebhookconfiguration.Definition(), mutatingwebhookconfiguration.Definition()
	check := func(t *testing.T, meta metav1.ObjectMeta, hooks ...v1.ValidatingWebhook) {
		v := &v1.ValidatingWebhookConfiguration{ObjectMeta: meta, Webhooks: hooks}
		theirs, ours := v.DeepCopy(), v.DeepCopy()
		sameDefaults(t, vdef, theirs, ours)
		internal := &admissionregistration.ValidatingWebhookConfiguration{}
		toInternal(t, theirs, internal)
		sameRBACErrors(t, vdef, ours, admregvalidation.ValidateValidatingWebhookConfiguration(internal))

		m := &v1.MutatingWebhookConfiguration{ObjectMeta: meta}
		for _, h := range hooks {
			m.Webhooks = append(m.Webhooks, toMutating(h))
		}
		mtheirs, mours := m.DeepCopy(), m.DeepCopy()
		sameDefaults(t, mdef, mtheirs, mours)
		minternal := &admissionregistration.MutatingWebhookConfiguration{}
		toInternal(t, mtheirs, minternal)
		sameRBACErrors(t, mdef, mours, admregvalidation.ValidateMutatingWebhookConfiguration(minternal))
	}
	for name, change := range webhookCases() {
		t.Run(name, func(t *testing.T) {
			h := goodWebhook()
			change(&h)
			check(t, metav1.ObjectMeta{Name: "hooks"}, h)
		})
	}
	t.Run("duplicate names", func(t *testing.T) { check(t, metav1.ObjectMeta{Name: "hooks"}, goodWebhook(), goodWebhook()) })
	t.Run("bad object name", func(t *testing.T) { check(t, metav1.ObjectMeta{Name: "Bad_Name"}, goodWebhook()) })
	t.Run("no webhooks", func(t *testing.T) { check(t, metav1.ObjectMeta{Name: "hooks"}) })
	t.Run("bad reinvocationPolicy", func(t *testing.T) {
		m := &v1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m"}, Webhooks: []v1.MutatingWebhook{toMutating(goodWebhook())}}
		m.Webhooks[0].ReinvocationPolicy = ptr.To(v1.ReinvocationPolicyType("Always"))
		internal := &admissionregistration.MutatingWebhookConfiguration{}
		theirs := m.DeepCopy()
		legacyscheme.Scheme.Default(theirs)
		toInternal(t, theirs, internal)
		sameRBACErrors(t, mdef, m, admregvalidation.ValidateMutatingWebhookConfiguration(internal))
	})
}

// TestAdmissionWebhookUpdatesMatchUpstream: an update keeps accepting what
// the stored object already had wrong (side effects, review versions,
// duplicate names, bad selector values), not what it newly gets wrong.
func TestAdmissionWebhookUpdatesMatchUpstream(t *testing.T) {
	vdef := validatingwebhookconfiguration.Definition()
	badValue := &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: metav1.LabelSelectorOpIn, Values: []string{"bad value!"}}}}
	mk := func(change func(h *v1.ValidatingWebhook), n int) *v1.ValidatingWebhookConfiguration {
		c := &v1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "hooks", ResourceVersion: "1"}}
		for i := 0; i < n; i++ {
			h := goodWebhook()
			change(&h)
			c.Webhooks = append(c.Webhooks, h)
		}
		return c
	}
	same := func(*v1.ValidatingWebhook) {}
	some := func(h *v1.ValidatingWebhook) { h.SideEffects = ptr.To(v1.SideEffectClassSome) }
	v2 := func(h *v1.ValidatingWebhook) { h.AdmissionReviewVersions = []string{"v2"} }
	sel := func(h *v1.ValidatingWebhook) { h.ObjectSelector = badValue }
	cases := map[string]struct {
		old, new *v1.ValidatingWebhookConfiguration
	}{
		"side effects kept":        {mk(some, 1), mk(some, 1)},
		"side effects introduced":  {mk(same, 1), mk(some, 1)},
		"review version kept":      {mk(v2, 1), mk(v2, 1)},
		"review version new":       {mk(same, 1), mk(v2, 1)},
		"duplicate names kept":     {mk(same, 2), mk(same, 2)},
		"duplicate names new":      {mk(same, 1), mk(same, 2)},
		"bad selector value kept":  {mk(sel, 1), mk(sel, 1)},
		"bad selector value new":   {mk(same, 1), mk(sel, 1)},
		"match conditions changed": {mk(same, 1), mk(func(h *v1.ValidatingWebhook) { h.MatchConditions = []v1.MatchCondition{{Name: "x", Expression: "1"}} }, 1)},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			theirsOld, theirsNew := c.old.DeepCopy(), c.new.DeepCopy()
			legacyscheme.Scheme.Default(theirsOld)
			legacyscheme.Scheme.Default(theirsNew)
			vdef.Default(c.old)
			vdef.Default(c.new)
			internalOld, internalNew := &admissionregistration.ValidatingWebhookConfiguration{}, &admissionregistration.ValidatingWebhookConfiguration{}
			toInternal(t, theirsOld, internalOld)
			toInternal(t, theirsNew, internalNew)
			sameRBACUpdateErrors(t, vdef, c.new, c.old, admregvalidation.ValidateValidatingWebhookConfigurationUpdate(internalNew, internalOld))
		})
	}
}

func deploymentRules() *v1.MatchResources {
	return &v1.MatchResources{ResourceRules: []v1.NamedRuleWithOperations{{RuleWithOperations: v1.RuleWithOperations{
		Operations: []v1.OperationType{v1.Create, v1.Update},
		Rule:       v1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}}}}}}
}

func goodPolicy() v1.ValidatingAdmissionPolicySpec {
	return v1.ValidatingAdmissionPolicySpec{MatchConstraints: deploymentRules(),
		Validations: []v1.Validation{{Expression: "object.spec.replicas <= 5", Message: "at most 5"}}}
}

func policyCases() map[string]func(s *v1.ValidatingAdmissionPolicySpec) {
	return map[string]func(s *v1.ValidatingAdmissionPolicySpec){
		"valid":               func(*v1.ValidatingAdmissionPolicySpec) {},
		"failurePolicy bogus": func(s *v1.ValidatingAdmissionPolicySpec) { s.FailurePolicy = ptr.To(v1.FailurePolicyType("Maybe")) },
		"no matchConstraints": func(s *v1.ValidatingAdmissionPolicySpec) { s.MatchConstraints = nil },
		"no resource rules":   func(s *v1.ValidatingAdmissionPolicySpec) { s.MatchConstraints = &v1.MatchResources{} },
		"bad matchPolicy": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.MatchConstraints.MatchPolicy = ptr.To(v1.MatchPolicyType("Close"))
		},
		"bad selectors": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.MatchConstraints.ObjectSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"k": "bad value!"}}
		},
		"resourceNames": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.MatchConstraints.ResourceRules[0].ResourceNames = []string{"a", "a", "b/c", ".."}
		},
		"exclude rule bad": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.MatchConstraints.ExcludeResourceRules = []v1.NamedRuleWithOperations{{}}
		},
		"no validations": func(s *v1.ValidatingAdmissionPolicySpec) { s.Validations = nil },
		"audit annotations only": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.Validations = nil
			s.AuditAnnotations = []v1.AuditAnnotation{{Key: "replicas", ValueExpression: "string(object.spec.replicas)"}}
		},
		"audit annotations bad": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.AuditAnnotations = []v1.AuditAnnotation{{Key: "bad key!", ValueExpression: " "}, {Key: "k", ValueExpression: "object."},
				{Key: "k", ValueExpression: "1 +"}, {Key: "long", ValueExpression: strings.Repeat("x", 5*1024+1)}}
		},
		"too many audit annotations": func(s *v1.ValidatingAdmissionPolicySpec) {
			for i := 0; i < 21; i++ {
				s.AuditAnnotations = append(s.AuditAnnotations, v1.AuditAnnotation{Key: "k" + strings.Repeat("x", i), ValueExpression: "'v'"})
			}
		},
		"expression does not compile": func(s *v1.ValidatingAdmissionPolicySpec) { s.Validations[0].Expression = "object.spec.replicas <=" },
		"expression not bool":         func(s *v1.ValidatingAdmissionPolicySpec) { s.Validations[0].Expression = "object.spec.replicas" },
		"expression empty":            func(s *v1.ValidatingAdmissionPolicySpec) { s.Validations[0].Expression = "  " },
		"params without paramKind": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.Validations[0].Expression = "object.spec.replicas <= params.max"
		},
		"params with paramKind": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.ParamKind = &v1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
			s.Validations[0].Expression = "object.spec.replicas <= int(params.data.max)"
			s.Validations[0].MessageExpression = "'too many: ' + string(params.data.max)"
			s.MatchConditions = []v1.MatchCondition{{Name: "p", Expression: "params != null"}}
		},
		"message expressions": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.Validations = append(s.Validations, v1.Validation{Expression: "true", MessageExpression: "  "},
				v1.Validation{Expression: "true", MessageExpression: "1 + 1"}, v1.Validation{Expression: "true", MessageExpression: "'x' +"},
				v1.Validation{Expression: "true", MessageExpression: "'n' + string(params.x)"})
		},
		"messages": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.Validations = append(s.Validations, v1.Validation{Expression: "true", Message: "  "},
				v1.Validation{Expression: "true", Message: "two\nlines"})
		},
		"reason bogus": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.Validations[0].Reason = ptr.To(metav1.StatusReason("Teapot"))
		},
		"reason allowed": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.Validations[0].Reason = ptr.To(metav1.StatusReasonInvalid)
		},
		"paramKind bad": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.ParamKind = &v1.ParamKind{APIVersion: "a/b/c", Kind: "Bad_Kind"}
		},
		"paramKind no version": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.ParamKind = &v1.ParamKind{APIVersion: "example.com/", Kind: ""}
		},
		"paramKind bad group": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.ParamKind = &v1.ParamKind{APIVersion: "Ex_ample/V1", Kind: "Thing"}
		},
		"paramKind empty": func(s *v1.ValidatingAdmissionPolicySpec) { s.ParamKind = &v1.ParamKind{} },
		"variables": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.Variables = []v1.Variable{{Name: "replicas", Expression: "object.spec.replicas"}}
			s.Validations[0].Expression = "variables.replicas <= 5"
		},
		"variables bad": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.Variables = []v1.Variable{{Name: "1bad", Expression: "1"}, {Name: "in", Expression: " "}, {Name: "", Expression: "object."},
				{Name: "ok", Expression: "variables.missing"}}
		},
		"match conditions bad": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.MatchConditions = []v1.MatchCondition{{Name: "a", Expression: "params.x"}, {Name: "a", Expression: "true"}, {Name: "", Expression: ""}}
		},
		"authorizer": func(s *v1.ValidatingAdmissionPolicySpec) {
			s.Validations[0].Expression = "authorizer.group('apps').resource('deployments').check('create').allowed()"
		},
	}
}

func TestValidatingAdmissionPoliciesMatchUpstream(t *testing.T) {
	def := validatingadmissionpolicy.Definition()
	check := func(t *testing.T, p *v1.ValidatingAdmissionPolicy) {
		theirs, ours := p.DeepCopy(), p.DeepCopy()
		sameDefaults(t, def, theirs, ours)
		internal := &admissionregistration.ValidatingAdmissionPolicy{}
		toInternal(t, theirs, internal)
		sameRBACErrors(t, def, ours, admregvalidation.ValidateValidatingAdmissionPolicy(internal))
	}
	for name, change := range policyCases() {
		t.Run(name, func(t *testing.T) {
			s := goodPolicy()
			change(&s)
			check(t, &v1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "policy"}, Spec: s})
		})
	}
	t.Run("audit annotation without a policy name", func(t *testing.T) {
		s := goodPolicy()
		s.AuditAnnotations = []v1.AuditAnnotation{{Key: "k", ValueExpression: "'v'"}}
		check(t, &v1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{GenerateName: "p-"}, Spec: s})
	})
	t.Run("status", func(t *testing.T) {
		p := &v1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "policy", ResourceVersion: "1"}, Spec: goodPolicy()}
		p.Status.TypeChecking = &v1.TypeChecking{ExpressionWarnings: []v1.ExpressionWarning{{FieldRef: "spec.validations[0].expression"}, {FieldRef: "{bad", Warning: "w"}, {Warning: "w"}}}
		p.Status.Conditions = []metav1.Condition{{Type: "bad type!", Status: "Maybe"}}
		internal := &admissionregistration.ValidatingAdmissionPolicy{}
		theirs := p.DeepCopy()
		legacyscheme.Scheme.Default(theirs)
		toInternal(t, theirs, internal)
		compareDetails(t, def.Status.ValidateUpdate(context.Background(), p, p), admregvalidation.ValidateValidatingAdmissionPolicyStatusUpdate(internal, internal))
	})
}

// TestValidatingAdmissionPolicyUpdatesMatchUpstream: unchanged match
// conditions are not checked again; expressions the stored policy had
// compile in the stored environment.
func TestValidatingAdmissionPolicyUpdatesMatchUpstream(t *testing.T) {
	def := validatingadmissionpolicy.Definition()
	bad := []v1.MatchCondition{{Name: "a", Expression: "params.x"}}
	mk := func(mcs []v1.MatchCondition, expr string) *v1.ValidatingAdmissionPolicy {
		s := goodPolicy()
		s.MatchConditions = mcs
		s.Validations[0].Expression = expr
		return &v1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "policy", ResourceVersion: "1"}, Spec: s}
	}
	cases := map[string]struct{ old, new *v1.ValidatingAdmissionPolicy }{
		"bad match condition kept":       {mk(bad, "true"), mk(bad, "false")},
		"bad match condition introduced": {mk(nil, "true"), mk(bad, "true")},
		"bad expression kept":            {mk(nil, "1 +"), mk(nil, "1 +")},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			theirsOld, theirsNew := c.old.DeepCopy(), c.new.DeepCopy()
			legacyscheme.Scheme.Default(theirsOld)
			legacyscheme.Scheme.Default(theirsNew)
			def.Default(c.old)
			def.Default(c.new)
			internalOld, internalNew := &admissionregistration.ValidatingAdmissionPolicy{}, &admissionregistration.ValidatingAdmissionPolicy{}
			toInternal(t, theirsOld, internalOld)
			toInternal(t, theirsNew, internalNew)
			sameRBACUpdateErrors(t, def, c.new, c.old, admregvalidation.ValidateValidatingAdmissionPolicyUpdate(internalNew, internalOld))
		})
	}
}

func vapBindingCases() map[string]func(s *v1.ValidatingAdmissionPolicyBindingSpec) {
	return map[string]func(s *v1.ValidatingAdmissionPolicyBindingSpec){
		"valid":          func(*v1.ValidatingAdmissionPolicyBindingSpec) {},
		"no policyName":  func(s *v1.ValidatingAdmissionPolicyBindingSpec) { s.PolicyName = "" },
		"bad policyName": func(s *v1.ValidatingAdmissionPolicyBindingSpec) { s.PolicyName = "Bad_Name" },
		"no actions":     func(s *v1.ValidatingAdmissionPolicyBindingSpec) { s.ValidationActions = nil },
		"Deny and Warn": func(s *v1.ValidatingAdmissionPolicyBindingSpec) {
			s.ValidationActions = []v1.ValidationAction{v1.Deny, v1.Warn}
		},
		"duplicate, bogus": func(s *v1.ValidatingAdmissionPolicyBindingSpec) {
			s.ValidationActions = []v1.ValidationAction{v1.Audit, v1.Audit, "Shout"}
		},
		"paramRef by name": func(s *v1.ValidatingAdmissionPolicyBindingSpec) {
			s.ParamRef = &v1.ParamRef{Name: "p", Namespace: "ns", ParameterNotFoundAction: ptr.To(v1.DenyAction)}
		},
		"paramRef empty": func(s *v1.ValidatingAdmissionPolicyBindingSpec) { s.ParamRef = &v1.ParamRef{} },
		"paramRef bad action": func(s *v1.ValidatingAdmissionPolicyBindingSpec) {
			s.ParamRef = &v1.ParamRef{Name: "..", ParameterNotFoundAction: ptr.To(v1.ParameterNotFoundActionType("Shrug"))}
		},
		"paramRef name and selector": func(s *v1.ValidatingAdmissionPolicyBindingSpec) {
			s.ParamRef = &v1.ParamRef{Name: "p", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k": "bad value!"}}, ParameterNotFoundAction: ptr.To(v1.AllowAction)}
		},
		"matchResources": func(s *v1.ValidatingAdmissionPolicyBindingSpec) {
			s.MatchResources = &v1.MatchResources{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}
		},
		"matchResources bad rule": func(s *v1.ValidatingAdmissionPolicyBindingSpec) {
			s.MatchResources = &v1.MatchResources{ResourceRules: []v1.NamedRuleWithOperations{{RuleWithOperations: v1.RuleWithOperations{Operations: []v1.OperationType{"*", v1.Delete}}}}}
		},
	}
}

func TestValidatingAdmissionPolicyBindingsMatchUpstream(t *testing.T) {
	def := validatingadmissionpolicybinding.Definition()
	for name, change := range vapBindingCases() {
		t.Run(name, func(t *testing.T) {
			s := v1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "policy", ValidationActions: []v1.ValidationAction{v1.Deny}}
			change(&s)
			b := &v1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "binding"}, Spec: s}
			theirs, ours := b.DeepCopy(), b.DeepCopy()
			sameDefaults(t, def, theirs, ours)
			internal := &admissionregistration.ValidatingAdmissionPolicyBinding{}
			toInternal(t, theirs, internal)
			sameRBACErrors(t, def, ours, admregvalidation.ValidateValidatingAdmissionPolicyBinding(internal))
		})
	}
}

func mutatingPolicyCases() map[string]func(s *v1.MutatingAdmissionPolicySpec) {
	jsonPatch := func(expr string) v1.Mutation {
		return v1.Mutation{PatchType: v1.PatchTypeJSONPatch, JSONPatch: &v1.JSONPatch{Expression: expr}}
	}
	return map[string]func(s *v1.MutatingAdmissionPolicySpec){
		"valid":              func(*v1.MutatingAdmissionPolicySpec) {},
		"no mutations":       func(s *v1.MutatingAdmissionPolicySpec) { s.Mutations = nil },
		"no reinvocation":    func(s *v1.MutatingAdmissionPolicySpec) { s.ReinvocationPolicy = "" },
		"bogus reinvocation": func(s *v1.MutatingAdmissionPolicySpec) { s.ReinvocationPolicy = "Always" },
		"DELETE operation": func(s *v1.MutatingAdmissionPolicySpec) {
			s.MatchConstraints.ResourceRules[0].Operations = []v1.OperationType{v1.Delete}
		},
		"no patchType":    func(s *v1.MutatingAdmissionPolicySpec) { s.Mutations = []v1.Mutation{{}} },
		"bogus patchType": func(s *v1.MutatingAdmissionPolicySpec) { s.Mutations = []v1.Mutation{{PatchType: "Merge"}} },
		"JSONPatch missing": func(s *v1.MutatingAdmissionPolicySpec) {
			s.Mutations = []v1.Mutation{{PatchType: v1.PatchTypeJSONPatch}}
		},
		"JSONPatch empty": func(s *v1.MutatingAdmissionPolicySpec) { s.Mutations = []v1.Mutation{jsonPatch(" ")} },
		"JSONPatch bad":   func(s *v1.MutatingAdmissionPolicySpec) { s.Mutations = []v1.Mutation{jsonPatch("[JSONPatch{op: ")} },
		"JSONPatch and apply": func(s *v1.MutatingAdmissionPolicySpec) {
			s.Mutations[0].ApplyConfiguration = &v1.ApplyConfiguration{Expression: "x"}
		},
		"apply configuration": func(s *v1.MutatingAdmissionPolicySpec) {
			s.Mutations = []v1.Mutation{{PatchType: v1.PatchTypeApplyConfiguration, ApplyConfiguration: &v1.ApplyConfiguration{
				Expression: `Object{metadata: Object.metadata{labels: {"mutated": "yes"}}}`}}}
		},
		"apply configuration missing": func(s *v1.MutatingAdmissionPolicySpec) {
			s.Mutations = []v1.Mutation{{PatchType: v1.PatchTypeApplyConfiguration, JSONPatch: &v1.JSONPatch{Expression: "[]"}}}
		},
		"apply configuration bad": func(s *v1.MutatingAdmissionPolicySpec) {
			s.Mutations = []v1.Mutation{{PatchType: v1.PatchTypeApplyConfiguration, ApplyConfiguration: &v1.ApplyConfiguration{Expression: "Object{"}}}
		},
		"variables and params": func(s *v1.MutatingAdmissionPolicySpec) {
			s.ParamKind = &v1.ParamKind{APIVersion: "v1", Kind: "ConfigMap"}
			s.Variables = []v1.Variable{{Name: "v", Expression: "params.data.x"}, {Name: "bad name", Expression: "1"}}
		},
	}
}

func TestMutatingAdmissionPoliciesMatchUpstream(t *testing.T) {
	def := mutatingadmissionpolicy.Definition()
	for name, change := range mutatingPolicyCases() {
		t.Run(name, func(t *testing.T) {
			s := v1.MutatingAdmissionPolicySpec{MatchConstraints: deploymentRules(), ReinvocationPolicy: v1.NeverReinvocationPolicy,
				Mutations: []v1.Mutation{{PatchType: v1.PatchTypeJSONPatch, JSONPatch: &v1.JSONPatch{
					Expression: `[JSONPatch{op: "add", path: "/metadata/labels/mutated", value: "yes"}]`}}}}
			change(&s)
			p := &v1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "policy"}, Spec: s}
			theirs, ours := p.DeepCopy(), p.DeepCopy()
			sameDefaults(t, def, theirs, ours)
			internal := &admissionregistration.MutatingAdmissionPolicy{}
			toInternal(t, theirs, internal)
			sameRBACErrors(t, def, ours, admregvalidation.ValidateMutatingAdmissionPolicy(internal))
		})
	}
}

func TestMutatingAdmissionPolicyBindingsMatchUpstream(t *testing.T) {
	def := mutatingadmissionpolicybinding.Definition()
	cases := map[string]v1.MutatingAdmissionPolicyBindingSpec{
		"valid":         {PolicyName: "policy"},
		"no policyName": {},
		"DELETE rule": {PolicyName: "policy", MatchResources: &v1.MatchResources{ResourceRules: []v1.NamedRuleWithOperations{{RuleWithOperations: v1.RuleWithOperations{
			Operations: []v1.OperationType{v1.Delete, v1.Create}, Rule: v1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}}}},
		"paramRef selector": {PolicyName: "policy", ParamRef: &v1.ParamRef{Selector: &metav1.LabelSelector{}}},
	}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			b := &v1.MutatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "binding"}, Spec: s}
			theirs, ours := b.DeepCopy(), b.DeepCopy()
			sameDefaults(t, def, theirs, ours)
			internal := &admissionregistration.MutatingAdmissionPolicyBinding{}
			toInternal(t, theirs, internal)
			sameRBACErrors(t, def, ours, admregvalidation.ValidateMutatingAdmissionPolicyBinding(internal))
		})
	}
}

// TestMutatingAdmissionUpdatesMatchUpstream: the mutating webhook
// configuration's and policy's update relaxations.
func TestMutatingAdmissionUpdatesMatchUpstream(t *testing.T) {
	wdef, pdef := mutatingwebhookconfiguration.Definition(), mutatingadmissionpolicy.Definition()
	hooks := func(change func(h *v1.ValidatingWebhook)) *v1.MutatingWebhookConfiguration {
		h := goodWebhook()
		change(&h)
		return &v1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m", ResourceVersion: "1"}, Webhooks: []v1.MutatingWebhook{toMutating(h)}}
	}
	some := func(h *v1.ValidatingWebhook) { h.SideEffects = ptr.To(v1.SideEffectClassSome) }
	badMC := func(h *v1.ValidatingWebhook) {
		h.MatchConditions = []v1.MatchCondition{{Name: "a", Expression: "params.x"}}
	}
	for name, c := range map[string]struct {
		old, new *v1.MutatingWebhookConfiguration
	}{
		"side effects kept":        {hooks(some), hooks(some)},
		"side effects introduced":  {hooks(func(*v1.ValidatingWebhook) {}), hooks(some)},
		"bad match condition kept": {hooks(badMC), hooks(badMC)},
		"bad match condition new":  {hooks(func(*v1.ValidatingWebhook) {}), hooks(badMC)},
	} {
		t.Run("webhooks/"+name, func(t *testing.T) {
			theirsOld, theirsNew := c.old.DeepCopy(), c.new.DeepCopy()
			legacyscheme.Scheme.Default(theirsOld)
			legacyscheme.Scheme.Default(theirsNew)
			wdef.Default(c.old)
			wdef.Default(c.new)
			internalOld, internalNew := &admissionregistration.MutatingWebhookConfiguration{}, &admissionregistration.MutatingWebhookConfiguration{}
			toInternal(t, theirsOld, internalOld)
			toInternal(t, theirsNew, internalNew)
			sameRBACUpdateErrors(t, wdef, c.new, c.old, admregvalidation.ValidateMutatingWebhookConfigurationUpdate(internalNew, internalOld))
		})
	}
	policy := func(mcs []v1.MatchCondition, expr string) *v1.MutatingAdmissionPolicy {
		return &v1.MutatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "p", ResourceVersion: "1"}, Spec: v1.MutatingAdmissionPolicySpec{
			MatchConstraints: deploymentRules(), ReinvocationPolicy: v1.NeverReinvocationPolicy, MatchConditions: mcs,
			Mutations: []v1.Mutation{{PatchType: v1.PatchTypeJSONPatch, JSONPatch: &v1.JSONPatch{Expression: expr}}}}}
	}
	bad := []v1.MatchCondition{{Name: "a", Expression: "params.x"}}
	const ok = `[JSONPatch{op: "add", path: "/metadata/labels/a", value: "b"}]`
	for name, c := range map[string]struct{ old, new *v1.MutatingAdmissionPolicy }{
		"bad match condition kept": {policy(bad, ok), policy(bad, ok)},
		"bad match condition new":  {policy(nil, ok), policy(bad, ok)},
		"bad patch kept":           {policy(nil, "[JSONPatch{"), policy(nil, "[JSONPatch{")},
	} {
		t.Run("policies/"+name, func(t *testing.T) {
			theirsOld, theirsNew := c.old.DeepCopy(), c.new.DeepCopy()
			legacyscheme.Scheme.Default(theirsOld)
			legacyscheme.Scheme.Default(theirsNew)
			pdef.Default(c.old)
			pdef.Default(c.new)
			internalOld, internalNew := &admissionregistration.MutatingAdmissionPolicy{}, &admissionregistration.MutatingAdmissionPolicy{}
			toInternal(t, theirsOld, internalOld)
			toInternal(t, theirsNew, internalNew)
			sameRBACUpdateErrors(t, pdef, c.new, c.old, admregvalidation.ValidateMutatingAdmissionPolicyUpdate(internalNew, internalOld))
		})
	}
}

// TestAdmissionExclusionsMatchUpstream: the resources kept out of the
// admission policies are kube-apiserver's.
func TestAdmissionExclusionsMatchUpstream(t *testing.T) {
	key := func(grs []schema.GroupResource) []string {
		var out []string
		for _, gr := range grs {
			out = append(out, gr.String())
		}
		sort.Strings(out)
		return out
	}
	if got, want := key(ours.Excluded()), key(exclusion.Excluded()); !reflect.DeepEqual(got, want) {
		t.Errorf("excluded from admission:\n ours     %v\n upstream %v", got, want)
	}
}
