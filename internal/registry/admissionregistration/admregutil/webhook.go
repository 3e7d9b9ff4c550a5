package admregutil

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/util/webhook"
)

var (
	supportedFailurePolicies      = sets.NewString(string(v1.Ignore), string(v1.Fail))
	supportedMatchPolicies        = sets.NewString(string(v1.Exact), string(v1.Equivalent))
	supportedSideEffectClasses    = sets.NewString(string(v1.SideEffectClassUnknown), string(v1.SideEffectClassNone), string(v1.SideEffectClassSome), string(v1.SideEffectClassNoneOnDryRun))
	noSideEffectClasses           = sets.NewString(string(v1.SideEffectClassNone), string(v1.SideEffectClassNoneOnDryRun))
	supportedReinvocationPolicies = sets.NewString(string(v1.NeverReinvocationPolicy), string(v1.IfNeededReinvocationPolicy))
)

// acceptedAdmissionReviewVersions are the AdmissionReview versions the
// server sends; a webhook must accept one of them.
var acceptedAdmissionReviewVersions = []string{"v1", "v1beta1"}

// webhookOptions are the checks an update relaxes when the stored object
// already failed them (so that old objects stay updatable).
type webhookOptions struct {
	ignoreMatchConditions            bool
	requireNoSideEffects             bool
	requireRecognizedReviewVersion   bool
	requireUniqueWebhookNames        bool
	allowInvalidLabelValueInSelector bool
	old                              preexisting
}

var strictWebhookOptions = webhookOptions{requireNoSideEffects: true, requireRecognizedReviewVersion: true, requireUniqueWebhookNames: true, old: newPreexisting()}

// webhookFields are the fields validating and mutating webhooks share.
type webhookFields struct {
	name                    string
	clientConfig            *v1.WebhookClientConfig
	rules                   []v1.RuleWithOperations
	failurePolicy           *v1.FailurePolicyType
	matchPolicy             *v1.MatchPolicyType
	namespaceSelector       *metav1.LabelSelector
	objectSelector          *metav1.LabelSelector
	sideEffects             *v1.SideEffectClass
	timeoutSeconds          *int32
	admissionReviewVersions []string
	matchConditions         []v1.MatchCondition
}

func validatingFields(h *v1.ValidatingWebhook) webhookFields {
	return webhookFields{h.Name, &h.ClientConfig, h.Rules, h.FailurePolicy, h.MatchPolicy, h.NamespaceSelector,
		h.ObjectSelector, h.SideEffects, h.TimeoutSeconds, h.AdmissionReviewVersions, h.MatchConditions}
}

func mutatingFields(h *v1.MutatingWebhook) webhookFields {
	return webhookFields{h.Name, &h.ClientConfig, h.Rules, h.FailurePolicy, h.MatchPolicy, h.NamespaceSelector,
		h.ObjectSelector, h.SideEffects, h.TimeoutSeconds, h.AdmissionReviewVersions, h.MatchConditions}
}

// ValidateValidatingWebhookConfiguration checks a new configuration (its
// object meta is checked by the caller).
func ValidateValidatingWebhookConfiguration(c *v1.ValidatingWebhookConfiguration) field.ErrorList {
	hooks := make([]webhookFields, len(c.Webhooks))
	for i := range c.Webhooks {
		hooks[i] = validatingFields(&c.Webhooks[i])
	}
	return validateWebhooks(hooks, nil, strictWebhookOptions)
}

// ValidateValidatingWebhookConfigurationUpdate checks an update.
func ValidateValidatingWebhookConfigurationUpdate(c, old *v1.ValidatingWebhookConfiguration) field.ErrorList {
	hooks := make([]webhookFields, len(c.Webhooks))
	for i := range c.Webhooks {
		hooks[i] = validatingFields(&c.Webhooks[i])
	}
	oldHooks := make([]webhookFields, len(old.Webhooks))
	for i := range old.Webhooks {
		oldHooks[i] = validatingFields(&old.Webhooks[i])
	}
	return validateWebhooks(hooks, nil, updateOptions(hooks, oldHooks))
}

// ValidateMutatingWebhookConfiguration checks a new configuration.
func ValidateMutatingWebhookConfiguration(c *v1.MutatingWebhookConfiguration) field.ErrorList {
	hooks, reinvocation := mutating(c)
	return validateWebhooks(hooks, reinvocation, strictWebhookOptions)
}

// ValidateMutatingWebhookConfigurationUpdate checks an update.
func ValidateMutatingWebhookConfigurationUpdate(c, old *v1.MutatingWebhookConfiguration) field.ErrorList {
	hooks, reinvocation := mutating(c)
	oldHooks, _ := mutating(old)
	return validateWebhooks(hooks, reinvocation, updateOptions(hooks, oldHooks))
}

func mutating(c *v1.MutatingWebhookConfiguration) ([]webhookFields, []*v1.ReinvocationPolicyType) {
	hooks := make([]webhookFields, len(c.Webhooks))
	reinvocation := make([]*v1.ReinvocationPolicyType, len(c.Webhooks))
	for i := range c.Webhooks {
		hooks[i] = mutatingFields(&c.Webhooks[i])
		reinvocation[i] = c.Webhooks[i].ReinvocationPolicy
	}
	return hooks, reinvocation
}

// updateOptions relaxes a check the stored webhooks already fail.
func updateOptions(hooks, old []webhookFields) webhookOptions {
	o := webhookOptions{
		ignoreMatchConditions:          sameMatchConditions(hooks, old),
		requireNoSideEffects:           true,
		requireRecognizedReviewVersion: true,
		requireUniqueWebhookNames:      true,
		old:                            newPreexisting(),
	}
	names := sets.NewString()
	for _, h := range old {
		if h.sideEffects == nil || !noSideEffectClasses.Has(string(*h.sideEffects)) {
			o.requireNoSideEffects = false
		}
		if len(h.admissionReviewVersions) > 0 && !hasAcceptedVersion(h.admissionReviewVersions) {
			o.requireRecognizedReviewVersion = false
		}
		if names.Has(h.name) {
			o.requireUniqueWebhookNames = false
		}
		names.Insert(h.name)
		if hasInvalidLabelValue(h.namespaceSelector) || hasInvalidLabelValue(h.objectSelector) {
			o.allowInvalidLabelValueInSelector = true
		}
		for _, mc := range h.matchConditions {
			o.old.matchConditions.Insert(mc.Expression)
		}
	}
	return o
}

func sameMatchConditions(hooks, old []webhookFields) bool {
	if len(hooks) != len(old) {
		return false
	}
	for i := range old {
		if !equalMatchConditions(hooks[i].matchConditions, old[i].matchConditions) {
			return false
		}
	}
	return true
}

func equalMatchConditions(a, b []v1.MatchCondition) bool {
	if len(a) != len(b) || (a == nil) != (b == nil) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func hasInvalidLabelValue(s *metav1.LabelSelector) bool {
	return s != nil && len(metav1validation.ValidateLabelSelector(s, metav1validation.LabelSelectorValidationOptions{}, nil)) > 0
}

func hasAcceptedVersion(versions []string) bool {
	for _, v := range versions {
		for _, a := range acceptedAdmissionReviewVersions {
			if v == a {
				return true
			}
		}
	}
	return false
}

// validateWebhooks checks each webhook, its admissionReviewVersions and
// the uniqueness of the names; reinvocation (mutating webhooks only) are
// their reinvocationPolicy values.
func validateWebhooks(hooks []webhookFields, reinvocation []*v1.ReinvocationPolicyType, o webhookOptions) field.ErrorList {
	var errs field.ErrorList
	names := sets.NewString()
	for i := range hooks {
		p := field.NewPath("webhooks").Index(i)
		var rp *v1.ReinvocationPolicyType
		if reinvocation != nil {
			rp = reinvocation[i]
		}
		errs = append(errs, validateWebhook(&hooks[i], rp, o, p)...)
		errs = append(errs, validateAdmissionReviewVersions(hooks[i].admissionReviewVersions, o.requireRecognizedReviewVersion, p.Child("admissionReviewVersions"))...)
		if name := hooks[i].name; o.requireUniqueWebhookNames && name != "" {
			if names.Has(name) {
				errs = append(errs, field.Duplicate(p.Child("name"), name))
			} else {
				names.Insert(name)
			}
		}
	}
	return errs
}

func validateWebhook(h *webhookFields, reinvocation *v1.ReinvocationPolicyType, o webhookOptions, p *field.Path) field.ErrorList {
	errs := utilvalidation.IsFullyQualifiedName(p.Child("name"), h.name)
	for i := range h.rules {
		errs = append(errs, validateRuleWithOperations(&h.rules[i], p.Child("rules").Index(i))...)
	}
	if h.failurePolicy != nil && !supportedFailurePolicies.Has(string(*h.failurePolicy)) {
		errs = append(errs, field.NotSupported(p.Child("failurePolicy"), *h.failurePolicy, supportedFailurePolicies.List()))
	}
	if h.matchPolicy != nil && !supportedMatchPolicies.Has(string(*h.matchPolicy)) {
		errs = append(errs, field.NotSupported(p.Child("matchPolicy"), *h.matchPolicy, supportedMatchPolicies.List()))
	}
	allowed := supportedSideEffectClasses
	if o.requireNoSideEffects {
		allowed = noSideEffectClasses
	}
	if h.sideEffects == nil {
		errs = append(errs, field.Required(p.Child("sideEffects"), fmt.Sprintf("must specify one of %v", strings.Join(allowed.List(), ", "))))
	} else if !allowed.Has(string(*h.sideEffects)) {
		errs = append(errs, field.NotSupported(p.Child("sideEffects"), *h.sideEffects, allowed.List()))
	}
	if t := h.timeoutSeconds; t != nil && (*t > 30 || *t < 1) {
		errs = append(errs, field.Invalid(p.Child("timeoutSeconds"), *t, "the timeout value must be between 1 and 30 seconds"))
	}
	selOpts := metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: o.allowInvalidLabelValueInSelector}
	if h.namespaceSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(h.namespaceSelector, selOpts, p.Child("namespaceSelector"))...)
	}
	if h.objectSelector != nil {
		errs = append(errs, metav1validation.ValidateLabelSelector(h.objectSelector, selOpts, p.Child("objectSelector"))...)
	}
	if reinvocation != nil && !supportedReinvocationPolicies.Has(string(*reinvocation)) {
		errs = append(errs, field.NotSupported(p.Child("reinvocationPolicy"), *reinvocation, supportedReinvocationPolicies.List()))
	}
	errs = append(errs, validateClientConfig(h.clientConfig, p.Child("clientConfig"))...)
	if !o.ignoreMatchConditions {
		errs = append(errs, validateMatchConditions(h.matchConditions, false, o.old, p.Child("matchConditions"))...)
	}
	return errs
}

// validateClientConfig requires exactly one of url (https) and service.
func validateClientConfig(cc *v1.WebhookClientConfig, p *field.Path) field.ErrorList {
	switch {
	case (cc.URL == nil) == (cc.Service == nil):
		return field.ErrorList{field.Required(p, "exactly one of url or service is required")}
	case cc.URL != nil:
		return webhook.ValidateWebhookURL(p.Child("url"), *cc.URL, true)
	}
	port := int32(443)
	if cc.Service.Port != nil {
		port = *cc.Service.Port
	}
	// Upstream passes the name where the namespace goes and the other way
	// round; the messages name each other's field as a result.
	return webhook.ValidateWebhookService(p.Child("service"), cc.Service.Name, cc.Service.Namespace, cc.Service.Path, port)
}

func validateAdmissionReviewVersions(versions []string, requireRecognized bool, p *field.Path) field.ErrorList {
	if len(versions) < 1 {
		return field.ErrorList{field.Required(p, fmt.Sprintf("must specify one of %v", strings.Join(acceptedAdmissionReviewVersions, ", ")))}
	}
	var errs field.ErrorList
	seen := sets.NewString()
	for i, v := range versions {
		if seen.Has(v) {
			errs = append(errs, field.Invalid(p.Index(i), v, "duplicate version"))
			continue
		}
		seen.Insert(v)
		for _, msg := range utilvalidation.IsDNS1035Label(v) {
			errs = append(errs, field.Invalid(p.Index(i), v, msg))
		}
	}
	if requireRecognized && !hasAcceptedVersion(versions) {
		errs = append(errs, field.Invalid(p, versions, fmt.Sprintf("must include at least one of %v", strings.Join(acceptedAdmissionReviewVersions, ", "))))
	}
	return errs
}
