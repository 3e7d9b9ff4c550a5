package job

import (
	"fmt"
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/core/pod"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Upstream's limits.
const (
	maxParallelismForIndexedJob             = 100000
	maxFailedIndexesForIndexedJob           = 100_000
	completionsSoftLimit                    = 100_000
	parallelismLimitForHighCompletions      = 10_000
	maxFailedIndexesLimitForHighCompletions = 10_000
	maxPodFailurePolicyRules                = 20
	maxOnExitCodesValues                    = 255
	maxOnPodConditionsPatterns              = 20
	maxManagedByLength                      = 63
	maxSucceededIndexesLength               = 64 * 1024
	maxSuccessPolicyRules                   = 20
)

var (
	failurePolicyActions = []batchv1.PodFailurePolicyAction{batchv1.PodFailurePolicyActionCount,
		batchv1.PodFailurePolicyActionFailIndex, batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionIgnore}
	exitCodeOperators  = []batchv1.PodFailurePolicyOnExitCodesOperator{batchv1.PodFailurePolicyOnExitCodesOpIn, batchv1.PodFailurePolicyOnExitCodesOpNotIn}
	conditionStatuses  = []corev1.ConditionStatus{corev1.ConditionFalse, corev1.ConditionTrue, corev1.ConditionUnknown}
	replacementPolices = []batchv1.PodReplacementPolicy{batchv1.Failed, batchv1.TerminatingOrFailed}
)

// options are upstream's JobValidationOptions.
type options struct {
	allowInvalidLabelValueInSelector bool
	allowMutableSchedulingDirectives bool
	requirePrefixedLabels            bool
}

// optionsFor is upstream's validationOptionsForJob (old nil on create;
// the MutablePodResources and MutableSchedulingDirectives gates for
// suspended jobs are off in 1.36).
func optionsFor(old *batchv1.Job) options {
	o := options{requirePrefixedLabels: true}
	if old == nil {
		return o
	}
	o.allowInvalidLabelValueInSelector = metav1validation.LabelSelectorHasInvalidLabelValue(old.Spec.Selector)
	o.allowMutableSchedulingDirectives = old.Spec.Suspend != nil && *old.Spec.Suspend && old.Status.StartTime == nil
	_, name := old.Spec.Template.Labels[batchv1.JobNameLabel]
	_, uid := old.Spec.Template.Labels[batchv1.ControllerUidLabel]
	o.requirePrefixedLabels = name && uid
	return o
}

// Validate checks a job as upstream's ValidateJob beyond the object meta.
func Validate(job *batchv1.Job, o options) field.ErrorList {
	errs := validateGeneratedSelector(job, o.requirePrefixedLabels)
	errs = append(errs, ValidateSpec(&job.Spec, field.NewPath("spec"), o.allowInvalidLabelValueInSelector)...)
	s := &job.Spec
	if s.CompletionMode != nil && *s.CompletionMode == batchv1.IndexedCompletion && s.Completions != nil && *s.Completions > 0 {
		host := fmt.Sprintf("%s-%d", job.Name, *s.Completions-1)
		if len(validation.IsDNS1123Label(host)) > 0 {
			errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), job.Name,
				fmt.Sprintf("will not able to create pod with invalid DNS label: %s", host)))
		}
	}
	return errs
}

// validateGeneratedSelector: a generated selector matches the job's own
// name and UID labels, which the template carries.
func validateGeneratedSelector(job *batchv1.Job, prefixed bool) field.ErrorList {
	if (job.Spec.ManualSelector != nil && *job.Spec.ManualSelector) || job.Spec.Selector == nil {
		return nil
	}
	var errs field.ErrorList
	if job.UID == "" {
		errs = append(errs, field.Required(field.NewPath("metadata", "uid"), ""))
	}
	tmpl := field.NewPath("spec", "template", "metadata")
	uid := string(job.UID)
	errs = append(errs, hasLabel(job.Spec.Template.Labels, tmpl, legacyControllerUIDLabel, uid)...)
	errs = append(errs, hasLabel(job.Spec.Template.Labels, tmpl, legacyJobNameLabel, job.Name)...)
	expected := map[string]string{legacyControllerUIDLabel: uid, legacyJobNameLabel: job.Name}
	if prefixed {
		errs = append(errs, hasLabel(job.Spec.Template.Labels, tmpl, batchv1.ControllerUidLabel, uid)...)
		errs = append(errs, hasLabel(job.Spec.Template.Labels, tmpl, batchv1.JobNameLabel, job.Name)...)
		expected[batchv1.ControllerUidLabel], expected[batchv1.JobNameLabel] = uid, job.Name
	}
	if sel, err := metav1.LabelSelectorAsSelector(job.Spec.Selector); err == nil && !sel.Matches(labels.Set(expected)) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "selector"), job.Spec.Selector, "`selector` not auto-generated"))
	}
	return errs
}

// hasLabel is upstream's ValidateHasLabel.
func hasLabel(l map[string]string, fld *field.Path, key, want string) field.ErrorList {
	got, ok := l[key]
	if !ok {
		return field.ErrorList{field.Required(fld.Child("labels").Key(key), fmt.Sprintf("must be '%s'", want))}
	}
	if got != want {
		return field.ErrorList{field.Invalid(fld.Child("labels").Key(key), l, fmt.Sprintf("must be '%s'", want))}
	}
	return nil
}

// ValidateSpec is upstream's ValidateJobSpec: the spec, a selector that
// matches the template's labels.
func ValidateSpec(s *batchv1.JobSpec, fld *field.Path, allowInvalidLabelValue bool) field.ErrorList {
	errs := validateSpec(s, fld)
	if s.Selector == nil {
		errs = append(errs, field.Required(fld.Child("selector"), ""))
	} else {
		errs = append(errs, metav1validation.ValidateLabelSelector(s.Selector,
			metav1validation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: allowInvalidLabelValue}, fld.Child("selector"))...)
	}
	if sel, err := metav1.LabelSelectorAsSelector(s.Selector); err == nil && !sel.Matches(labels.Set(s.Template.Labels)) {
		errs = append(errs, field.Invalid(fld.Child("template", "metadata", "labels"), s.Template.Labels, "`selector` does not match template `labels`"))
	}
	return errs
}

func nonNegative(v *int32, fld *field.Path) field.ErrorList {
	if v == nil {
		return nil
	}
	return apivalidation.ValidateNonnegativeField(int64(*v), fld)
}

func validateSpec(s *batchv1.JobSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, nonNegative(s.Parallelism, fld.Child("parallelism"))...)
	errs = append(errs, nonNegative(s.Completions, fld.Child("completions"))...)
	if s.ActiveDeadlineSeconds != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(*s.ActiveDeadlineSeconds, fld.Child("activeDeadlineSeconds"))...)
	}
	errs = append(errs, nonNegative(s.BackoffLimit, fld.Child("backoffLimit"))...)
	errs = append(errs, nonNegative(s.TTLSecondsAfterFinished, fld.Child("ttlSecondsAfterFinished"))...)
	errs = append(errs, nonNegative(s.BackoffLimitPerIndex, fld.Child("backoffLimitPerIndex"))...)
	if s.MaxFailedIndexes != nil {
		errs = append(errs, nonNegative(s.MaxFailedIndexes, fld.Child("maxFailedIndexes"))...)
		if s.BackoffLimitPerIndex == nil {
			errs = append(errs, field.Required(fld.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
		}
	}
	if s.ManagedBy != nil {
		errs = append(errs, validation.IsDomainPrefixedPath(fld.Child("managedBy"), *s.ManagedBy)...)
		if len(*s.ManagedBy) > maxManagedByLength {
			errs = append(errs, field.TooLong(fld.Child("managedBy"), "", maxManagedByLength))
		}
	}
	errs = append(errs, validateCompletionMode(s, fld)...)
	if s.PodFailurePolicy != nil {
		errs = append(errs, validatePodFailurePolicy(s, fld.Child("podFailurePolicy"))...)
	}
	if s.SuccessPolicy != nil {
		if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
			errs = append(errs, field.Invalid(fld.Child("successPolicy"), resource.AsInternal(*s.SuccessPolicy), "requires indexed completion mode"))
		} else {
			errs = append(errs, validateSuccessPolicy(s, fld.Child("successPolicy"))...)
		}
	}
	if p := s.PodReplacementPolicy; p != nil {
		if s.PodFailurePolicy != nil {
			if *p != batchv1.Failed {
				errs = append(errs, field.NotSupported(fld.Child("podReplacementPolicy"), *p, []batchv1.PodReplacementPolicy{batchv1.Failed}))
			}
		} else if !slices.Contains(replacementPolices, *p) {
			errs = append(errs, field.NotSupported(fld.Child("podReplacementPolicy"), *p, replacementPolices))
		}
	}
	errs = append(errs, pod.ValidatePodTemplateSpec(&s.Template, fld.Child("template"))...)
	restart := fld.Child("template", "spec", "restartPolicy")
	switch rp := s.Template.Spec.RestartPolicy; {
	case rp == corev1.RestartPolicyAlways || rp == "":
		errs = append(errs, field.Required(restart, fmt.Sprintf("valid values: %q, %q", corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever)))
	case rp != corev1.RestartPolicyOnFailure && rp != corev1.RestartPolicyNever:
		errs = append(errs, field.NotSupported(restart, rp, []corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}))
	case s.PodFailurePolicy != nil && rp != corev1.RestartPolicyNever:
		errs = append(errs, field.Invalid(restart, rp, fmt.Sprintf("only %q is supported when podFailurePolicy is specified", corev1.RestartPolicyNever)))
	}
	return errs
}

func validateCompletionMode(s *batchv1.JobSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if m := s.CompletionMode; m != nil {
		if *m != batchv1.NonIndexedCompletion && *m != batchv1.IndexedCompletion {
			errs = append(errs, field.NotSupported(fld.Child("completionMode"), m, []batchv1.CompletionMode{batchv1.NonIndexedCompletion, batchv1.IndexedCompletion}))
		}
		if *m == batchv1.IndexedCompletion {
			errs = append(errs, validateIndexedLimits(s, fld)...)
		}
	}
	if s.CompletionMode == nil || *s.CompletionMode == batchv1.NonIndexedCompletion {
		if s.BackoffLimitPerIndex != nil {
			errs = append(errs, field.Invalid(fld.Child("backoffLimitPerIndex"), *s.BackoffLimitPerIndex, "requires indexed completion mode"))
		}
		if s.MaxFailedIndexes != nil {
			errs = append(errs, field.Invalid(fld.Child("maxFailedIndexes"), *s.MaxFailedIndexes, "requires indexed completion mode"))
		}
	}
	return errs
}

func validateIndexedLimits(s *batchv1.JobSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Completions == nil {
		errs = append(errs, field.Required(fld.Child("completions"), fmt.Sprintf("when completion mode is %s", batchv1.IndexedCompletion)))
	}
	if s.Parallelism != nil && *s.Parallelism > maxParallelismForIndexedJob {
		errs = append(errs, field.Invalid(fld.Child("parallelism"), *s.Parallelism,
			fmt.Sprintf("must be less than or equal to %d when completion mode is %s", maxParallelismForIndexedJob, batchv1.IndexedCompletion)))
	}
	if s.Completions != nil && s.MaxFailedIndexes != nil && *s.MaxFailedIndexes > *s.Completions {
		errs = append(errs, field.Invalid(fld.Child("maxFailedIndexes"), *s.MaxFailedIndexes, "must be less than or equal to completions"))
	}
	if s.MaxFailedIndexes != nil && *s.MaxFailedIndexes > maxFailedIndexesForIndexedJob {
		errs = append(errs, field.Invalid(fld.Child("maxFailedIndexes"), *s.MaxFailedIndexes, fmt.Sprintf("must be less than or equal to %d", maxFailedIndexesForIndexedJob)))
	}
	if s.Completions != nil && *s.Completions > completionsSoftLimit && s.BackoffLimitPerIndex != nil {
		if s.MaxFailedIndexes == nil {
			errs = append(errs, field.Required(fld.Child("maxFailedIndexes"), fmt.Sprintf("must be specified when completions is above %d", completionsSoftLimit)))
		}
		if s.Parallelism != nil && *s.Parallelism > parallelismLimitForHighCompletions {
			errs = append(errs, field.Invalid(fld.Child("parallelism"), *s.Parallelism, fmt.Sprintf("must be less than or equal to %d when completions are above %d and used with backoff limit per index", parallelismLimitForHighCompletions, completionsSoftLimit)))
		}
		if s.MaxFailedIndexes != nil && *s.MaxFailedIndexes > maxFailedIndexesLimitForHighCompletions {
			errs = append(errs, field.Invalid(fld.Child("maxFailedIndexes"), *s.MaxFailedIndexes, fmt.Sprintf("must be less than or equal to %d when completions are above %d and used with backoff limit per index", maxFailedIndexesLimitForHighCompletions, completionsSoftLimit)))
		}
	}
	return errs
}

// ValidateTemplateSpec checks a CronJob's job template as upstream's
// ValidateJobTemplateSpec: the job spec without a selector of its own
// (the job's is generated) and not a manual one.
func ValidateTemplateSpec(t *batchv1.JobTemplateSpec, fld *field.Path) field.ErrorList {
	errs := validateSpec(&t.Spec, fld.Child("spec"))
	if t.Spec.Selector != nil {
		errs = append(errs, field.Invalid(fld.Child("spec", "selector"), t.Spec.Selector, "`selector` will be auto-generated"))
	}
	if t.Spec.ManualSelector != nil && *t.Spec.ManualSelector {
		errs = append(errs, field.NotSupported(fld.Child("spec", "manualSelector"), t.Spec.ManualSelector, []string{"nil", "false"}))
	}
	return errs
}
