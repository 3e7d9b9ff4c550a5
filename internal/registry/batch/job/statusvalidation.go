package job

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// ValidateStatusUpdate is upstream's ValidateJobStatusUpdate with the
// options of getStatusValidationOptions (beyond the metadata).
func ValidateStatusUpdate(job, old *batchv1.Job) field.ErrorList {
	o := statusOptionsFor(job, old)
	fld := field.NewPath("status")
	errs := validateStatus(job, fld, o)
	conditions := fld.Child("conditions")
	for _, t := range []batchv1.JobConditionType{batchv1.JobFailed, batchv1.JobComplete, batchv1.JobFailureTarget} {
		if isTrue(old, t) && !isTrue(job, t) {
			errs = append(errs, field.Invalid(conditions, field.OmitValueType{}, fmt.Sprintf("cannot disable the terminal %s=True condition", string(t))))
		}
	}
	st, os := &job.Status, &old.Status
	if st.Failed < os.Failed {
		errs = append(errs, field.Invalid(fld.Child("failed"), st.Failed, "cannot decrease the failed counter"))
	}
	if o.rejectDecreasingSucceeded && st.Succeeded < os.Succeeded {
		errs = append(errs, field.Invalid(fld.Child("succeeded"), st.Succeeded, "cannot decrease the succeeded counter"))
	}
	if st.CompletionTime != nil && os.CompletionTime != nil && !timeEqual(st.CompletionTime, os.CompletionTime) {
		errs = append(errs, field.Invalid(fld.Child("completionTime"), st.CompletionTime, "field is immutable"))
	}
	if o.rejectStartTimeUpdate && os.StartTime != nil && !timeEqual(os.StartTime, st.StartTime) && !(job.Spec.Suspend != nil && *job.Spec.Suspend) {
		errs = append(errs, field.Invalid(fld.Child("startTime"), st.StartTime, "field is immutable for unsuspended job once set"))
	}
	if isTrue(old, batchv1.JobSuccessCriteriaMet) && !isTrue(job, batchv1.JobSuccessCriteriaMet) {
		errs = append(errs, field.Invalid(conditions, field.OmitValueType{}, "cannot disable the SuccessCriteriaMet=True condition"))
	}
	if isTrue(old, batchv1.JobComplete) && !isTrue(old, batchv1.JobSuccessCriteriaMet) && isTrue(job, batchv1.JobSuccessCriteriaMet) {
		errs = append(errs, field.Invalid(conditions, field.OmitValueType{}, "cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions"))
	}
	return errs
}

func validateStatus(job *batchv1.Job, fld *field.Path, o statusOptions) field.ErrorList {
	st := &job.Status
	errs := apivalidation.ValidateNonnegativeField(int64(st.Active), fld.Child("active"))
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(st.Succeeded), fld.Child("succeeded"))...)
	errs = append(errs, apivalidation.ValidateNonnegativeField(int64(st.Failed), fld.Child("failed"))...)
	errs = append(errs, nonNegative(st.Ready, fld.Child("ready"))...)
	errs = append(errs, nonNegative(st.Terminating, fld.Child("terminating"))...)
	if u := st.UncountedTerminatedPods; u != nil {
		seen := map[types.UID]bool{}
		p := fld.Child("uncountedTerminatedPods")
		for _, part := range []struct {
			name string
			uids []types.UID
		}{{"succeeded", u.Succeeded}, {"failed", u.Failed}} {
			for i, k := range part.uids {
				ip := p.Child(part.name).Index(i)
				switch {
				case k == "":
					errs = append(errs, field.Invalid(ip, k, "must not be empty"))
				case seen[k]:
					errs = append(errs, field.Duplicate(ip, k))
				default:
					seen[k] = true
				}
			}
		}
	}
	errs = append(errs, validateStatusConditions(job, fld, o)...)
	errs = append(errs, validateStatusIndexes(job, fld, o)...)
	return errs
}

func validateStatusConditions(job *batchv1.Job, fld *field.Path, o statusOptions) field.ErrorList {
	var errs field.ErrorList
	st := &job.Status
	conditions := fld.Child("conditions")
	invalid := func(msg string) { errs = append(errs, field.Invalid(conditions, field.OmitValueType{}, msg)) }
	complete, failed := isTrue(job, batchv1.JobComplete), isTrue(job, batchv1.JobFailed)
	target, met := isTrue(job, batchv1.JobFailureTarget), isTrue(job, batchv1.JobSuccessCriteriaMet)
	if o.rejectCompleteWithFailed && complete && failed {
		invalid("cannot set Complete=True and Failed=true conditions")
	}
	if o.rejectCompleteWithFailureTarget && complete && target {
		invalid("cannot set Complete=True and FailureTarget=true conditions")
	}
	if o.rejectNotCompleteWithCompletionTime && st.CompletionTime != nil && !complete {
		errs = append(errs, field.Invalid(fld.Child("completionTime"), st.CompletionTime, "cannot set completionTime when there is no Complete=True condition"))
	}
	if o.rejectCompleteWithoutCompletionTime && st.CompletionTime == nil && complete {
		errs = append(errs, field.Required(fld.Child("completionTime"), "completionTime is required for Complete jobs"))
	}
	if o.rejectCompletionBeforeStart && st.StartTime != nil && st.CompletionTime != nil && st.CompletionTime.Before(st.StartTime) {
		errs = append(errs, field.Invalid(fld.Child("completionTime"), st.CompletionTime, "must be equal to or after `startTime`"))
	}
	if o.rejectFailedWithoutFailureTarget && failed && !target {
		invalid("cannot set Failed=True condition without the FailureTarget=true condition")
	}
	if o.rejectCompleteWithoutSuccessCriteriaMet && complete && !met {
		invalid("cannot set Complete=True condition without the SuccessCriteriaMet=true condition")
	}
	finished := isFinished(job)
	if o.rejectFinishedWithActive && st.Active > 0 && finished {
		errs = append(errs, field.Invalid(fld.Child("active"), st.Active, "active>0 is invalid for finished job"))
	}
	if o.rejectFinishedWithoutStartTime && st.StartTime == nil && finished {
		errs = append(errs, field.Required(fld.Child("startTime"), "startTime is required for finished job"))
	}
	if u := st.UncountedTerminatedPods; o.rejectFinishedWithUncounted && finished && u != nil && len(u.Failed)+len(u.Succeeded) > 0 {
		errs = append(errs, field.Invalid(fld.Child("uncountedTerminatedPods"), resource.AsInternal(u), "must be empty for finished job"))
	}
	if o.rejectFinishedTerminating && st.Terminating != nil && *st.Terminating > 0 && finished {
		errs = append(errs, field.Invalid(fld.Child("terminating"), st.Terminating, "terminating>0 is invalid for finished job"))
	}
	if o.rejectMoreReadyThanActive && st.Ready != nil && *st.Ready > st.Active {
		errs = append(errs, field.Invalid(fld.Child("ready"), *st.Ready, "cannot set more ready pods than active"))
	}
	if met && failed {
		invalid("cannot set SuccessCriteriaMet=True and Failed=true conditions")
	}
	if met && target {
		invalid("cannot set SuccessCriteriaMet=True and FailureTarget=true conditions")
	}
	if job.Spec.SuccessPolicy != nil && !met && complete {
		invalid("cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True")
	}
	return errs
}

func validateStatusIndexes(job *batchv1.Job, fld *field.Path, o statusOptions) field.ErrorList {
	var errs field.ErrorList
	st, s := &job.Status, &job.Spec
	if o.rejectInvalidCompletedIndexes && s.Completions != nil {
		if _, err := indexesTotal(st.CompletedIndexes, *s.Completions); err != nil {
			errs = append(errs, field.Invalid(fld.Child("completedIndexes"), st.CompletedIndexes, fmt.Sprintf("error parsing completedIndexes: %s", err.Error())))
		}
	}
	if o.rejectInvalidFailedIndexes && s.Completions != nil && s.BackoffLimitPerIndex != nil && st.FailedIndexes != nil {
		if _, err := indexesTotal(*st.FailedIndexes, *s.Completions); err != nil {
			errs = append(errs, field.Invalid(fld.Child("failedIndexes"), st.FailedIndexes, fmt.Sprintf("error parsing failedIndexes: %s", err.Error())))
		}
	}
	indexed := s.CompletionMode != nil && *s.CompletionMode == batchv1.IndexedCompletion
	if o.rejectCompletedIndexesForNonIndexed && st.CompletedIndexes != "" && !indexed {
		errs = append(errs, field.Invalid(fld.Child("completedIndexes"), st.CompletedIndexes, "cannot set non-empty completedIndexes when non-indexed completion mode"))
	}
	if o.rejectFailedIndexesWithoutBackoffLimitPerIndex && s.BackoffLimitPerIndex == nil && st.FailedIndexes != nil {
		errs = append(errs, field.Invalid(fld.Child("failedIndexes"), *st.FailedIndexes, "cannot set non-null failedIndexes when backoffLimitPerIndex is null"))
	}
	if o.rejectFailedIndexesOverlappingCompleted && s.Completions != nil && st.FailedIndexes != nil {
		if err := indexesOverlap(st.CompletedIndexes, *st.FailedIndexes, *s.Completions); err != nil {
			errs = append(errs, field.Invalid(fld.Child("failedIndexes"), *st.FailedIndexes, err.Error()))
		}
	}
	return errs
}
