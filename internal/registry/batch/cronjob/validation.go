package cronjob

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	batchv1 "k8s.io/api/batch/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/batch/job"
)

var validTimeZoneCharacters = regexp.MustCompile(`^[A-Za-z\.\-_0-9+]{1,14}$`)

// ValidateSpec is upstream's validateCronJobSpec (old nil on create).
func ValidateSpec(s, old *batchv1.CronJobSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Schedule == "" {
		errs = append(errs, field.Required(fld.Child("schedule"), ""))
	} else {
		errs = append(errs, validateSchedule(s.Schedule, old != nil && strings.Contains(old.Schedule, "TZ"), s.TimeZone, fld.Child("schedule"))...)
	}
	if s.StartingDeadlineSeconds != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(*s.StartingDeadlineSeconds, fld.Child("startingDeadlineSeconds"))...)
	}
	if old == nil || !apiequality.Semantic.DeepEqual(old.TimeZone, s.TimeZone) {
		errs = append(errs, validateTimeZone(s.TimeZone, fld.Child("timeZone"))...)
	}
	switch p := s.ConcurrencyPolicy; p {
	case batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent:
	case "":
		errs = append(errs, field.Required(fld.Child("concurrencyPolicy"), ""))
	default:
		errs = append(errs, field.NotSupported(fld.Child("concurrencyPolicy"), p,
			[]batchv1.ConcurrencyPolicy{batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent}))
	}
	errs = append(errs, job.ValidateTemplateSpec(&s.JobTemplate, fld.Child("jobTemplate"))...)
	if v := s.SuccessfulJobsHistoryLimit; v != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*v), fld.Child("successfulJobsHistoryLimit"))...)
	}
	if v := s.FailedJobsHistoryLimit; v != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*v), fld.Child("failedJobsHistoryLimit"))...)
	}
	return errs
}

// validateSchedule parses the schedule as kube-controller-manager does
// (cron.ParseStandard, its panics turned into errors) and refuses a TZ in
// it unless the stored one had it.
func validateSchedule(schedule string, allowTZ bool, tz *string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if err := parseSchedule(schedule); err != nil {
		errs = append(errs, field.Invalid(fld, schedule, err.Error()))
	}
	switch {
	case allowTZ && strings.Contains(schedule, "TZ") && tz != nil:
		errs = append(errs, field.Invalid(fld, schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"))
	case !allowTZ && strings.Contains(schedule, "TZ"):
		errs = append(errs, field.Invalid(fld, schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
	}
	return errs
}

func parseSchedule(schedule string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("invalid schedule format: %v", r)
		}
	}()
	_, err = cron.ParseStandard(schedule)
	return err
}

// validateTimeZone: nil, or an explicit IANA zone this host knows.
func validateTimeZone(tz *string, fld *field.Path) field.ErrorList {
	if tz == nil {
		return nil
	}
	if *tz == "" {
		return field.ErrorList{field.Invalid(fld, tz, "timeZone must be nil or non-empty string")}
	}
	for _, part := range strings.Split(*tz, "/") {
		if part == "." || part == ".." || strings.HasPrefix(part, "-") || !validTimeZoneCharacters.MatchString(part) {
			return field.ErrorList{field.Invalid(fld, tz, fmt.Sprintf("unknown time zone %s", *tz))}
		}
	}
	var errs field.ErrorList
	if strings.EqualFold(*tz, "Local") {
		errs = append(errs, field.Invalid(fld, tz, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
	}
	if _, err := time.LoadLocation(*tz); err != nil {
		errs = append(errs, field.Invalid(fld, tz, err.Error()))
	}
	return errs
}
