// Package event defines events.k8s.io/v1 events. They are the same objects
// as core/v1 events, stored once under /registry/events in the core/v1
// encoding (a cohabiting resource, as in kube-apiserver), so an event written
// through one API is read through the other. Conversion maps regarding ⇄
// involvedObject, note ⇄ message and the deprecated* fields ⇄ their core
// originals; validation, field selectors and table columns are core's,
// applied to the converted object.
package event
