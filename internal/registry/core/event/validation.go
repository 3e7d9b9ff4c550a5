package event

import (
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Length limits of the events.k8s.io/v1 fields, as upstream.
const (
	ReportingInstanceLengthLimit = 128
	ActionLengthLimit            = 128
	ReasonLengthLimit            = 128
	NoteLengthLimit              = 1024
)

// ValidateLegacy applies the checks every event passes, whichever API wrote
// it. Events without eventTime are old-style: their namespace must match the
// involved object's. Events with eventTime are new-style and need the
// reporting fields; reportingField names reportingController in the
// errors (core/v1 calls it reportingComponent).
func ValidateLegacy(e *corev1.Event, reportingField string) field.ErrorList {
	var errs field.ErrorList
	nsPath := field.NewPath("involvedObject", "namespace")
	mismatch := field.Invalid(nsPath, e.InvolvedObject.Namespace, "does not match event.namespace")
	if e.EventTime.IsZero() {
		if e.InvolvedObject.Namespace == "" {
			if e.Namespace != metav1.NamespaceNone && e.Namespace != metav1.NamespaceDefault {
				errs = append(errs, mismatch)
			}
		} else if e.Namespace != e.InvolvedObject.Namespace {
			errs = append(errs, mismatch)
		}
	} else {
		if e.InvolvedObject.Namespace == "" && e.Namespace != metav1.NamespaceDefault && e.Namespace != metav1.NamespaceSystem {
			errs = append(errs, mismatch)
		}
		errs = append(errs, validateReporting(e, reportingField)...)
	}
	for _, msg := range validation.IsDNS1123Subdomain(e.Namespace) {
		errs = append(errs, field.Invalid(field.NewPath("namespace"), e.Namespace, msg))
	}
	return errs
}

func validateReporting(e *corev1.Event, reportingField string) field.ErrorList {
	var errs field.ErrorList
	if e.ReportingController == "" {
		errs = append(errs, field.Required(field.NewPath(reportingField), ""))
	}
	for _, msg := range validation.IsQualifiedName(e.ReportingController) {
		errs = append(errs, field.Invalid(field.NewPath(reportingField), e.ReportingController, msg))
	}
	errs = append(errs, requiredWithLimit("reportingInstance", e.ReportingInstance, ReportingInstanceLengthLimit)...)
	errs = append(errs, requiredWithLimit("action", e.Action, ActionLengthLimit)...)
	errs = append(errs, requiredWithLimit("reason", e.Reason, ReasonLengthLimit)...)
	if len(e.Message) > NoteLengthLimit {
		errs = append(errs, field.Invalid(field.NewPath("message"), "", fmt.Sprintf("can have at most %v characters", NoteLengthLimit)))
	}
	return errs
}

func requiredWithLimit(name, value string, limit int) field.ErrorList {
	p := field.NewPath(name)
	if value == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if len(value) > limit {
		return field.ErrorList{field.Invalid(p, "", fmt.Sprintf("can have at most %v characters", limit))}
	}
	return nil
}

// ValidateStrictCreate adds the checks of events created through
// events.k8s.io/v1: eventTime required, type Normal or Warning, the
// deprecated core fields unset, a valid series.
func ValidateStrictCreate(e *corev1.Event) field.ErrorList {
	errs := ValidateLegacy(e, "reportingController")
	errs = append(errs, validateSeries(e)...)
	if e.EventTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("eventTime"), ""))
	}
	if e.Type != corev1.EventTypeNormal && e.Type != corev1.EventTypeWarning {
		errs = append(errs, field.Invalid(field.NewPath("type"), "", fmt.Sprintf("has invalid value: %v", e.Type)))
	}
	unset := func(name string, isSet bool) {
		if isSet {
			errs = append(errs, field.Invalid(field.NewPath(name), "", "needs to be unset"))
		}
	}
	unset("firstTimestamp", !e.FirstTimestamp.IsZero())
	unset("lastTimestamp", !e.LastTimestamp.IsZero())
	unset("count", e.Count != 0)
	unset("source", e.Source.Component != "" || e.Source.Host != "")
	return errs
}

// ValidateStrictUpdate adds the checks of updates through events.k8s.io/v1:
// everything but the series is immutable.
func ValidateStrictUpdate(e, old *corev1.Event) field.ErrorList {
	errs := ValidateLegacy(e, "reportingController")
	if !reflect.DeepEqual(e.Series, old.Series) {
		errs = append(errs, validateSeries(e)...)
	}
	immutable := func(name string, a, b interface{}) {
		if !reflect.DeepEqual(a, b) {
			errs = append(errs, field.Invalid(field.NewPath(name), a, "field is immutable"))
		}
	}
	immutable("involvedObject", e.InvolvedObject, old.InvolvedObject)
	immutable("reason", e.Reason, old.Reason)
	immutable("message", e.Message, old.Message)
	immutable("source", e.Source, old.Source)
	immutable("firstTimestamp", e.FirstTimestamp, old.FirstTimestamp)
	immutable("lastTimestamp", e.LastTimestamp, old.LastTimestamp)
	immutable("count", e.Count, old.Count)
	immutable("type", e.Type, old.Type)
	immutable("eventTime", e.EventTime, old.EventTime)
	immutable("action", e.Action, old.Action)
	immutable("related", e.Related, old.Related)
	immutable("reportingController", e.ReportingController, old.ReportingController)
	immutable("reportingInstance", e.ReportingInstance, old.ReportingInstance)
	return errs
}

func validateSeries(e *corev1.Event) field.ErrorList {
	var errs field.ErrorList
	if e.Series == nil {
		return nil
	}
	if e.Series.Count < 2 {
		errs = append(errs, field.Invalid(field.NewPath("series.count"), "", "should be at least 2"))
	}
	if e.Series.LastObservedTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("series.lastObservedTime"), ""))
	}
	return errs
}
