package event

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/svcplane/svcplane/internal/registry/resource"
)

// TTLSeconds is how long events are kept (kube-apiserver's --event-ttl).
const TTLSeconds = 3600

// Definition returns the core/v1 events resource.
func Definition() *resource.Definition {
	return &resource.Definition{
		GroupVersion: corev1.SchemeGroupVersion, Kind: "Event",
		Resource: "events", Singular: "event", Namespaced: true,
		ShortNames:          []string{"ev"},
		AllowCreateOnUpdate: true,
		TTLSeconds:          TTLSeconds,
		New:                 func() runtime.Object { return &corev1.Event{} },
		NewList:             func() runtime.Object { return &corev1.EventList{} },
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return ValidateLegacy(obj.(*corev1.Event), "reportingComponent")
		},
		// core/v1 events: no object meta check of their own (upstream's
		// ValidateEventCreate for v1); the generic registry's follows.
		MetaValidation:  resource.MetaNone,
		FieldLabelNames: FieldLabelNames,
		FieldLabels:     func(obj runtime.Object) fields.Set { return FieldLabelsOf(obj.(*corev1.Event)) },
		OmitNameColumn:  true,
		Columns:         Columns,
		Row:             func(obj runtime.Object) []interface{} { return RowOf(obj.(*corev1.Event)) },
	}
}

// FieldLabelNames are the field selector labels of core/v1 events beyond
// metadata (upstream: AddFieldLabelConversionsForEvent in
// pkg/apis/core/v1/conversion.go); events.k8s.io/v1 maps its own labels
// onto these attributes.
var FieldLabelNames = []string{"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
	"involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
	"involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"}

// FieldLabelsOf returns the field selector attributes of e.
func FieldLabelsOf(e *corev1.Event) fields.Set {
	source := e.Source.Component
	if source == "" {
		source = e.ReportingController
	}
	return fields.Set{
		"involvedObject.kind":            e.InvolvedObject.Kind,
		"involvedObject.namespace":       e.InvolvedObject.Namespace,
		"involvedObject.name":            e.InvolvedObject.Name,
		"involvedObject.uid":             string(e.InvolvedObject.UID),
		"involvedObject.apiVersion":      e.InvolvedObject.APIVersion,
		"involvedObject.resourceVersion": e.InvolvedObject.ResourceVersion,
		"involvedObject.fieldPath":       e.InvolvedObject.FieldPath,
		"reason":                         e.Reason,
		"reportingComponent":             e.ReportingController,
		"source":                         source,
		"type":                           e.Type,
	}
}

// Columns are upstream's event table columns (NAME only with -o wide).
var Columns = []metav1.TableColumnDefinition{
	resource.Column("Last Seen", "string", 0, "Time when last event occurred."),
	resource.Column("Type", "string", 0, "Type of this event (Normal, Warning), new types could be added in the future."),
	resource.Column("Reason", "string", 0, "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
	resource.Column("Object", "string", 0, "The object that this event is about."),
	resource.Column("Subobject", "string", 1, "The subobject that this event is about."),
	resource.Column("Source", "string", 1, "The component reporting this event."),
	resource.Column("Message", "string", 0, "A human-readable description of the status of this operation."),
	resource.Column("First Seen", "string", 1, "The time at which the event was first recorded."),
	resource.Column("Count", "string", 1, "The number of times this event has occurred."),
	resource.Column("Name", "string", 1, "Name must be unique within a namespace."),
}

// RowOf returns the table cells of e for Columns.
func RowOf(e *corev1.Event) []interface{} {
	first, last := resource.Since(e.FirstTimestamp), resource.Since(e.LastTimestamp)
	if e.Series != nil {
		last = resource.Since(metav1.Time(e.Series.LastObservedTime))
	} else if e.LastTimestamp.IsZero() {
		last = resource.Since(metav1.Time(e.EventTime))
	}
	if e.FirstTimestamp.IsZero() {
		first = resource.Since(metav1.Time(e.EventTime))
	}
	source := e.Source.Component
	if source == "" {
		source = e.ReportingController
	}
	if e.Source.Host != "" {
		source += ", " + e.Source.Host
	}
	count := e.Count
	if e.Series != nil {
		count = e.Series.Count
	} else if count == 0 {
		count = 1
	}
	object := fmt.Sprintf("%s/%s", strings.ToLower(e.InvolvedObject.Kind), e.InvolvedObject.Name)
	return []interface{}{last, e.Type, e.Reason, object, e.InvolvedObject.FieldPath, source,
		strings.TrimSpace(e.Message), first, int64(count), e.Name}
}
