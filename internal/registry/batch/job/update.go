package job

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// ValidateUpdate is upstream's job update check beyond the metadata: the
// new job as on create, then ValidateJobSpecUpdate.
func ValidateUpdate(job, old *batchv1.Job) field.ErrorList {
	o := optionsFor(old)
	errs := Validate(job, o)
	s, os := &job.Spec, &old.Spec
	fld := field.NewPath("spec")
	errs = append(errs, ValidateSpec(s, fld, o.allowInvalidLabelValueInSelector)...)
	errs = append(errs, validateCompletionsUpdate(s, os, fld.Child("completions"))...)
	errs = append(errs, immutable(s.Selector, os.Selector, fld.Child("selector"))...)
	errs = append(errs, validateTemplateUpdate(s, os, fld, o)...)
	errs = append(errs, immutable(s.CompletionMode, os.CompletionMode, fld.Child("completionMode"))...)
	errs = append(errs, immutable(s.PodFailurePolicy, os.PodFailurePolicy, fld.Child("podFailurePolicy"))...)
	errs = append(errs, immutable(s.BackoffLimitPerIndex, os.BackoffLimitPerIndex, fld.Child("backoffLimitPerIndex"))...)
	errs = append(errs, immutable(s.ManagedBy, os.ManagedBy, fld.Child("managedBy"))...)
	return append(errs, immutable(s.SuccessPolicy, os.SuccessPolicy, fld.Child("successPolicy"))...)
}

// immutable is ValidateImmutableField with the value rendered as
// upstream's internal type.
func immutable(v, old interface{}, fld *field.Path) field.ErrorList {
	if apiequality.Semantic.DeepEqual(v, old) {
		return nil
	}
	return field.ErrorList{field.Invalid(fld, resource.AsInternal(v), apivalidation.FieldImmutableErrorMsg)}
}

// validateCompletionsUpdate: completions are immutable, but for indexed
// jobs, which may change them together with parallelism.
func validateCompletionsUpdate(s, old *batchv1.JobSpec, fld *field.Path) field.ErrorList {
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		return immutable(s.Completions, old.Completions, fld)
	}
	if apiequality.Semantic.DeepEqual(s.Completions, old.Completions) || s.Completions == nil {
		return nil
	}
	if s.Parallelism == nil || *s.Completions != *s.Parallelism {
		return field.ErrorList{field.Invalid(fld, s.Completions, fmt.Sprintf("can only be modified in tandem with %s", fld.Root().Child("parallelism").String()))}
	}
	return nil
}

// validateTemplateUpdate: the template is immutable, but a suspended job
// that never started may change its scheduling directives (node affinity,
// node selector, tolerations, labels, annotations, scheduling gates).
func validateTemplateUpdate(s, old *batchv1.JobSpec, fld *field.Path, o options) field.ErrorList {
	t, ot := &s.Template, &old.Template
	if o.allowMutableSchedulingDirectives {
		ot = old.Template.DeepCopy()
		switch {
		case t.Spec.Affinity == nil && ot.Spec.Affinity != nil:
			ot.Spec.Affinity.NodeAffinity = nil
			if apiequality.Semantic.DeepEqual(*ot.Spec.Affinity, corev1.Affinity{}) {
				ot.Spec.Affinity = nil
			}
		case t.Spec.Affinity != nil && ot.Spec.Affinity == nil:
			ot.Spec.Affinity = &corev1.Affinity{NodeAffinity: t.Spec.Affinity.NodeAffinity}
		case t.Spec.Affinity != nil && ot.Spec.Affinity != nil:
			ot.Spec.Affinity.NodeAffinity = t.Spec.Affinity.NodeAffinity
		}
		ot.Spec.NodeSelector = t.Spec.NodeSelector
		ot.Spec.Tolerations = t.Spec.Tolerations
		ot.Annotations = t.Annotations
		ot.Labels = t.Labels
		ot.Spec.SchedulingGates = t.Spec.SchedulingGates
	}
	return immutable(t, ot, fld.Child("template"))
}
