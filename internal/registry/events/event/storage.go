package event

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	coreevent "github.com/svcplane/svcplane/internal/registry/core/event"
	"github.com/svcplane/svcplane/internal/registry/resource"
)

// Definition returns the events.k8s.io/v1 events resource, stored with the
// core/v1 events.
func Definition() *resource.Definition {
	toCore := func(obj runtime.Object) *corev1.Event { return ToCore(obj.(*eventsv1.Event)) }
	return &resource.Definition{
		GroupVersion: eventsv1.SchemeGroupVersion, Kind: "Event",
		Resource: "events", Singular: "event", Namespaced: true,
		ShortNames:          []string{"ev"},
		StoredAs:            &schema.GroupVersionResource{Version: "v1", Resource: "events"},
		Conversions:         AddConversions,
		AllowCreateOnUpdate: true,
		TTLSeconds:          coreevent.TTLSeconds,
		New:                 func() runtime.Object { return &eventsv1.Event{} },
		NewList:             func() runtime.Object { return &eventsv1.EventList{} },
		Validate: func(ctx context.Context, obj runtime.Object) field.ErrorList {
			return coreevent.ValidateStrictCreate(toCore(obj))
		},
		// Upstream's strict ValidateEventUpdate: the metadata's transition
		// and what may not change.
		UpdateMeta: resource.UpdateMetaTransition,
		ValidateUpdate: func(ctx context.Context, obj, old runtime.Object) field.ErrorList {
			return coreevent.ValidateStrictUpdate(toCore(obj), toCore(old))
		},
		// events.k8s.io has labels of its own, mapped onto the core
		// attributes (there is no source, involvedObject.* nor
		// reportingComponent here).
		FieldLabelNames:   []string{"reason", "type"},
		FieldLabelAliases: FieldLabelAliases,
		FieldLabels:       func(obj runtime.Object) fields.Set { return coreevent.FieldLabelsOf(toCore(obj)) },
		OmitNameColumn:    true,
		Columns:           coreevent.Columns,
		Row:               func(obj runtime.Object) []interface{} { return coreevent.RowOf(toCore(obj)) },
	}
}

// FieldLabelAliases maps the events.k8s.io/v1 field labels onto the core
// event attributes they select, as upstream's AddFieldLabelConversionsForEvent
// (pkg/apis/events/v1/conversion.go) does.
var FieldLabelAliases = map[string]string{
	"regarding.kind":            "involvedObject.kind",
	"regarding.namespace":       "involvedObject.namespace",
	"regarding.name":            "involvedObject.name",
	"regarding.uid":             "involvedObject.uid",
	"regarding.apiVersion":      "involvedObject.apiVersion",
	"regarding.resourceVersion": "involvedObject.resourceVersion",
	"regarding.fieldPath":       "involvedObject.fieldPath",
	"reportingController":       "reportingComponent",
}
