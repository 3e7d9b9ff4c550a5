package event

import (
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
)

// ToCore returns the core/v1 form of e.
func ToCore(e *eventsv1.Event) *corev1.Event {
	out := &corev1.Event{
		TypeMeta:            e.TypeMeta,
		ObjectMeta:          *e.ObjectMeta.DeepCopy(),
		InvolvedObject:      e.Regarding,
		Reason:              e.Reason,
		Message:             e.Note,
		Source:              e.DeprecatedSource,
		FirstTimestamp:      e.DeprecatedFirstTimestamp,
		LastTimestamp:       e.DeprecatedLastTimestamp,
		Count:               e.DeprecatedCount,
		Type:                e.Type,
		EventTime:           e.EventTime,
		Action:              e.Action,
		ReportingController: e.ReportingController,
		ReportingInstance:   e.ReportingInstance,
	}
	if e.Series != nil {
		out.Series = &corev1.EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	if e.Related != nil {
		r := *e.Related
		out.Related = &r
	}
	return out
}

// FromCore returns the events.k8s.io/v1 form of e.
func FromCore(e *corev1.Event) *eventsv1.Event {
	out := &eventsv1.Event{
		TypeMeta:                 e.TypeMeta,
		ObjectMeta:               *e.ObjectMeta.DeepCopy(),
		EventTime:                e.EventTime,
		ReportingController:      e.ReportingController,
		ReportingInstance:        e.ReportingInstance,
		Action:                   e.Action,
		Reason:                   e.Reason,
		Regarding:                e.InvolvedObject,
		Note:                     e.Message,
		Type:                     e.Type,
		DeprecatedSource:         e.Source,
		DeprecatedFirstTimestamp: e.FirstTimestamp,
		DeprecatedLastTimestamp:  e.LastTimestamp,
		DeprecatedCount:          e.Count,
	}
	if e.Series != nil {
		out.Series = &eventsv1.EventSeries{Count: e.Series.Count, LastObservedTime: e.Series.LastObservedTime}
	}
	if e.Related != nil {
		r := *e.Related
		out.Related = &r
	}
	return out
}

// AddConversions registers both directions in scheme; the storage codec
// uses them to keep events.k8s.io events in the core/v1 encoding.
func AddConversions(scheme *runtime.Scheme) error {
	err := scheme.AddConversionFunc((*eventsv1.Event)(nil), (*corev1.Event)(nil), func(a, b interface{}, _ conversion.Scope) error {
		*b.(*corev1.Event) = *ToCore(a.(*eventsv1.Event))
		return nil
	})
	if err != nil {
		return err
	}
	return scheme.AddConversionFunc((*corev1.Event)(nil), (*eventsv1.Event)(nil), func(a, b interface{}, _ conversion.Scope) error {
		*b.(*eventsv1.Event) = *FromCore(a.(*corev1.Event))
		return nil
	})
}
