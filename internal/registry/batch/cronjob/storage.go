package cronjob

import (
	"context"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/apps/workload"
	"github.com/svcplane/svcplane/internal/registry/batch/job"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the cronjobs resource.
func Definition() *resource.Definition {
	spec, status := batchv1.CronJobSpec{}.SwaggerDoc(), batchv1.CronJobStatus{}.SwaggerDoc()
	return &resource.Definition{
		GroupVersion: batchv1.SchemeGroupVersion, Kind: "CronJob",
		Resource: "cronjobs", Singular: "cronjob", Namespaced: true,
		ShortNames: []string{"cj"}, Categories: []string{"all"},
		New:        func() runtime.Object { return &batchv1.CronJob{} },
		NewList:    func() runtime.Object { return &batchv1.CronJobList{} },
		Default:    func(obj runtime.Object) { Default(obj.(*batchv1.CronJob)) },
		Generation: true,
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			cj := obj.(*batchv1.CronJob)
			errs := ValidateSpec(&cj.Spec, nil, field.NewPath("spec"))
			if len(cj.Name) > validation.DNS1035LabelMaxLength-11 {
				errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), cj.Name, "must be no more than 52 characters"))
			}
			return errs
		},
		// Upstream's ValidateCronJobUpdate: the metadata's transition and
		// the new spec judged against the old one.
		UpdateMeta: resource.UpdateMetaTransition,
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			return ValidateSpec(&obj.(*batchv1.CronJob).Spec, &old.(*batchv1.CronJob).Spec, field.NewPath("spec"))
		},
		Warnings: warnings,
		// Upstream's /status checks nothing of its own.
		Status: &resource.StatusDefinition{
			NoMetaCheck: true,
			Warnings:    func(context.Context, runtime.Object, runtime.Object) []string { return nil },
		},
		Columns: []metav1.TableColumnDefinition{
			resource.Column("Schedule", "string", 0, spec["schedule"]),
			resource.Column("Timezone", "string", 0, spec["timeZone"]),
			resource.Column("Suspend", "boolean", 0, spec["suspend"]),
			resource.Column("Active", "integer", 0, status["active"]),
			resource.Column("Last Schedule", "string", 0, status["lastScheduleTime"]),
			resource.AgeColumn,
			resource.Column("Containers", "string", 1, "Names of each container in the template."),
			resource.Column("Images", "string", 1, "Images referenced by each container in the template."),
			resource.Column("Selector", "string", 1, batchv1.JobSpec{}.SwaggerDoc()["selector"]),
		},
		Row: func(obj runtime.Object) []interface{} {
			cj := obj.(*batchv1.CronJob)
			last, tz, suspend := "<none>", "<none>", "<unset>"
			if t := cj.Status.LastScheduleTime; t != nil {
				last = resource.Since(*t)
			}
			if cj.Spec.TimeZone != nil {
				tz = *cj.Spec.TimeZone
			}
			if cj.Spec.Suspend != nil {
				suspend = fmt.Sprint(*cj.Spec.Suspend)
			}
			containers, images := workload.ContainersAndImages(&cj.Spec.JobTemplate.Spec.Template.Spec)
			return []interface{}{cj.Spec.Schedule, tz, suspend, int64(len(cj.Status.Active)), last, resource.AgeOf(obj),
				containers, images, metav1.FormatLabelSelector(cj.Spec.JobTemplate.Spec.Selector)}
		},
	}
}

// Default is upstream's SetObjectDefaults_CronJob: the cronjob's own
// defaults and its job template's pod defaults (the job spec's own
// defaults wait for the Job).
func Default(cj *batchv1.CronJob) {
	s := &cj.Spec
	if s.ConcurrencyPolicy == "" {
		s.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if s.Suspend == nil {
		f := false
		s.Suspend = &f
	}
	if s.SuccessfulJobsHistoryLimit == nil {
		v := int32(3)
		s.SuccessfulJobsHistoryLimit = &v
	}
	if s.FailedJobsHistoryLimit == nil {
		v := int32(1)
		s.FailedJobsHistoryLimit = &v
	}
	job.DefaultTemplate(&s.JobTemplate.Spec)
}

// warnings are upstream's: a name that is no DNS label on create; a TZ in
// the schedule on update.
func warnings(ctx context.Context, obj, old runtime.Object) []string {
	cj := obj.(*batchv1.CronJob)
	var out []string
	if old == nil {
		if msgs := validation.IsDNS1123Label(cj.Name); len(msgs) != 0 {
			out = append(out, fmt.Sprintf("metadata.name: this is used in Pod names and hostnames, which can result in surprising behavior; a DNS label is recommended: %v", msgs))
		}
		return out
	}
	if strings.Contains(cj.Spec.Schedule, "TZ") {
		out = append(out, fmt.Sprintf("cannot use TZ or CRON_TZ in %s, use timeZone instead, see https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details", field.NewPath("spec", "spec", "schedule")))
	}
	return out
}
