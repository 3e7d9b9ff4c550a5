package job

import (
	"context"
	"fmt"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/apps/workload"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the jobs resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: batchv1.SchemeGroupVersion, Kind: "Job",
		Resource: "jobs", Singular: "job", Namespaced: true, Categories: []string{"all"},
		New:        func() runtime.Object { return &batchv1.Job{} },
		NewList:    func() runtime.Object { return &batchv1.JobList{} },
		Default:    func(obj runtime.Object) { Default(obj.(*batchv1.Job)) },
		Generation: true,
		PrepareForCreate: func(ctx context.Context, obj runtime.Object) {
			generateSelector(obj.(*batchv1.Job))
		},
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return Validate(obj.(*batchv1.Job), optionsFor(nil))
		},
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			return ValidateUpdate(obj.(*batchv1.Job), old.(*batchv1.Job))
		},
		Warnings: func(ctx context.Context, obj, old runtime.Object) []string {
			return warnings(obj.(*batchv1.Job), old)
		},
		Status: &resource.StatusDefinition{
			ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
				return ValidateStatusUpdate(obj.(*batchv1.Job), old.(*batchv1.Job))
			},
			Warnings: func(context.Context, runtime.Object, runtime.Object) []string { return nil },
		},
		// batch/v1 deletes orphan the pods unless told otherwise (kubectl
		// deletes in the background).
		OrphanByDefault: true,
		FieldLabelNames: []string{"status.successful"},
		FieldLabelError: "field label %q not supported for Job",
		FieldLabels: func(obj runtime.Object) fields.Set {
			return fields.Set{"status.successful": strconv.Itoa(int(obj.(*batchv1.Job).Status.Succeeded))}
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Status", "string", 0, "Status of the job."),
			resource.Column("Completions", "string", 0, batchv1.JobStatus{}.SwaggerDoc()["succeeded"]),
			resource.Column("Duration", "string", 0, "Time required to complete the job."),
			resource.AgeColumn,
			resource.Column("Containers", "string", 1, "Names of each container in the template."),
			resource.Column("Images", "string", 1, "Images referenced by each container in the template."),
			resource.Column("Selector", "string", 1, batchv1.JobSpec{}.SwaggerDoc()["selector"]),
		},
		Row: row,
	}
}

// warnings are upstream's: a name that is no DNS label (pod names and
// hostnames derive from it) on create; indexed jobs too large to track.
func warnings(job *batchv1.Job, old runtime.Object) []string {
	var out []string
	if old == nil {
		if msgs := validation.IsDNS1123Label(job.Name); len(msgs) != 0 {
			out = append(out, fmt.Sprintf("metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: %v", msgs))
		}
	} else if job.Generation == old.(*batchv1.Job).Generation {
		return nil
	}
	s := &job.Spec
	if s.CompletionMode != nil && *s.CompletionMode == batchv1.IndexedCompletion &&
		s.Completions != nil && *s.Completions > completionsSoftLimit && s.Parallelism != nil && *s.Parallelism > parallelismLimitForHighCompletions {
		out = append(out, "spec: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail")
	}
	return out
}

// row is upstream's printJob (wide, as the server prints).
func row(obj runtime.Object) []interface{} {
	job := obj.(*batchv1.Job)
	var completions string
	switch p := job.Spec.Parallelism; {
	case job.Spec.Completions != nil:
		completions = fmt.Sprintf("%d/%d", job.Status.Succeeded, *job.Spec.Completions)
	case p != nil && *p > 1:
		completions = fmt.Sprintf("%d/1 of %d", job.Status.Succeeded, *p)
	default:
		completions = fmt.Sprintf("%d/1", job.Status.Succeeded)
	}
	var took string
	switch st := job.Status; {
	case st.StartTime == nil:
	case st.CompletionTime == nil:
		took = duration.HumanDuration(time.Since(st.StartTime.Time))
	default:
		took = duration.HumanDuration(st.CompletionTime.Sub(st.StartTime.Time))
	}
	containers, images := workload.ContainersAndImages(&job.Spec.Template.Spec)
	return []interface{}{statusColumn(job), completions, took, resource.AgeOf(obj), containers, images,
		metav1.FormatLabelSelector(job.Spec.Selector)}
}

// statusColumn: the first of Complete, Failed, Terminating, Suspended,
// FailureTarget, SuccessCriteriaMet that holds, else Running (a condition
// counts by its first entry, as upstream's hasJobCondition).
func statusColumn(job *batchv1.Job) string {
	has := func(t batchv1.JobConditionType) bool {
		for _, c := range job.Status.Conditions {
			if c.Type == t {
				return c.Status == corev1.ConditionTrue
			}
		}
		return false
	}
	switch {
	case has(batchv1.JobComplete):
		return "Complete"
	case has(batchv1.JobFailed):
		return "Failed"
	case job.DeletionTimestamp != nil:
		return "Terminating"
	case has(batchv1.JobSuspended):
		return "Suspended"
	case has(batchv1.JobFailureTarget):
		return "FailureTarget"
	case has(batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	}
	return "Running"
}
