package job

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// statusOptions are upstream's JobStatusValidationOptions as its
// getStatusValidationOptions sets them with JobManagedBy on (GA in 1.36):
// most rules apply only when the fields they judge change.
type statusOptions struct {
	rejectDecreasingSucceeded, rejectInvalidCompletedIndexes, rejectInvalidFailedIndexes  bool
	rejectCompletedIndexesForNonIndexed, rejectFailedIndexesWithoutBackoffLimitPerIndex   bool
	rejectFailedIndexesOverlappingCompleted, rejectFailedWithoutFailureTarget             bool
	rejectCompleteWithoutSuccessCriteriaMet, rejectFinishedWithActive                     bool
	rejectFinishedWithoutStartTime, rejectFinishedWithUncounted, rejectStartTimeUpdate    bool
	rejectCompletionBeforeStart, rejectNotCompleteWithCompletionTime                      bool
	rejectCompleteWithoutCompletionTime, rejectCompleteWithFailed                         bool
	rejectCompleteWithFailureTarget, rejectMoreReadyThanActive, rejectFinishedTerminating bool
}

func statusOptionsFor(job, old *batchv1.Job) statusOptions {
	indexed := job.Spec.CompletionMode != nil && *job.Spec.CompletionMode == batchv1.IndexedCompletion
	finished := isFinished(old) != isFinished(job)
	complete := isTrue(old, batchv1.JobComplete) != isTrue(job, batchv1.JobComplete)
	failed := isTrue(old, batchv1.JobFailed) != isTrue(job, batchv1.JobFailed)
	failureTarget := isTrue(old, batchv1.JobFailureTarget) != isTrue(job, batchv1.JobFailureTarget)
	successMet := isTrue(old, batchv1.JobSuccessCriteriaMet) != isTrue(job, batchv1.JobSuccessCriteriaMet)
	st, os := &job.Status, &old.Status
	completedIdx := os.CompletedIndexes != st.CompletedIndexes
	failedIdx := !apiequality.Semantic.DeepEqual(os.FailedIndexes, st.FailedIndexes)
	active := os.Active != st.Active
	start := !timeEqual(os.StartTime, st.StartTime)
	completion := !timeEqual(os.CompletionTime, st.CompletionTime)
	uncounted := !apiequality.Semantic.DeepEqual(os.UncountedTerminatedPods, st.UncountedTerminatedPods)
	ready := !apiequality.Semantic.DeepEqual(os.Ready, st.Ready)
	terminating := !apiequality.Semantic.DeepEqual(os.Terminating, st.Terminating)
	suspendedZero := job.Spec.Suspend != nil && *job.Spec.Suspend && job.Spec.Completions != nil && *job.Spec.Completions == 0
	resuming := isTrue(old, batchv1.JobSuspended) && conditionIs(job, batchv1.JobSuspended, corev1.ConditionFalse)
	return statusOptions{
		rejectDecreasingSucceeded:                      !indexed || !apiequality.Semantic.DeepEqual(job.Spec.Completions, job.Spec.Parallelism),
		rejectInvalidCompletedIndexes:                  completedIdx,
		rejectInvalidFailedIndexes:                     failedIdx,
		rejectCompletedIndexesForNonIndexed:            completedIdx,
		rejectFailedIndexesWithoutBackoffLimitPerIndex: failedIdx,
		rejectFailedIndexesOverlappingCompleted:        failedIdx || completedIdx,
		rejectFailedWithoutFailureTarget:               failed || failedIdx,
		rejectCompleteWithoutSuccessCriteriaMet:        complete || successMet,
		rejectFinishedWithActive:                       finished || active,
		rejectFinishedWithoutStartTime:                 (finished || start) && !suspendedZero,
		rejectFinishedWithUncounted:                    finished || uncounted,
		rejectStartTimeUpdate:                          start && !resuming,
		rejectCompletionBeforeStart:                    start || completion,
		rejectNotCompleteWithCompletionTime:            complete || completion,
		rejectCompleteWithoutCompletionTime:            complete || completion,
		rejectCompleteWithFailed:                       complete || failed,
		rejectCompleteWithFailureTarget:                complete || failureTarget,
		rejectMoreReadyThanActive:                      ready || active,
		rejectFinishedTerminating:                      finished || terminating,
	}
}

func timeEqual(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}

// isTrue reports a condition of type t with status True.
func isTrue(job *batchv1.Job, t batchv1.JobConditionType) bool {
	return conditionIs(job, t, corev1.ConditionTrue)
}

func conditionIs(job *batchv1.Job, t batchv1.JobConditionType, s corev1.ConditionStatus) bool {
	for _, c := range job.Status.Conditions {
		if c.Type == t && c.Status == s {
			return true
		}
	}
	return false
}

// isFinished: Complete or Failed is True.
func isFinished(job *batchv1.Job) bool {
	return isTrue(job, batchv1.JobComplete) || isTrue(job, batchv1.JobFailed)
}
